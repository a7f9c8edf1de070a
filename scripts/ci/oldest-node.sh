#!/usr/bin/env bash
# The packed package where a user would meet it: the tarball installed into an empty project, its
# command and a Client script run on the oldest Node that package.json's `engines` allows, on the
# newest line and on the system's Node (test/package.test.ts, which `npm test` leaves to this
# lane; the tarball is installed once for the three).
# (The suite itself needs a newer Node than the package: its tests use import.meta.dirname.)
set -euo pipefail
cd "$(dirname "$0")/../.."
oldest=$(node -p "require('./package.json').engines.node.replace(/^>=\s*/, '')")
oldest_bin=$(scripts/ci/install-node.sh "$oldest")
newest_bin=$(scripts/ci/install-node.sh 26)
CONDUIT_SMOKE_NODE="$oldest_bin:$newest_bin:$(command -v node)" node scripts/run-tests.mjs test/package.test.ts
