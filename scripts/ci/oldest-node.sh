#!/usr/bin/env bash
# The oldest Node that package.json's `engines` allows, checked where a user would meet it: the
# packed tarball installed into an empty project, its command and a Client script run on that Node.
# (The suite itself needs a newer Node than the package: its tests use import.meta.dirname.)
set -euo pipefail
cd "$(dirname "$0")/../.."
oldest=$(node -p "require('./package.json').engines.node.replace(/^>=\s*/, '')")
CONDUIT_SMOKE_NODE=$(scripts/ci/install-node.sh "$oldest") node scripts/run-tests.mjs test/package.test.ts
