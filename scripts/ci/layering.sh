#!/usr/bin/env bash
# The layering of ARCHITECTURE.md, checked in the imports (test/layering.test.ts): seconds, no process.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node scripts/run-tests.mjs layering.test
