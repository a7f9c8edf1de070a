#!/usr/bin/env bash
# Every example of README.md and docs/ (test/docs/examples-{1,2,3}.test.ts, against the built
# package that `npm test` made), on the system's Node and on the newest line, with that Node first
# on PATH as in node-line.sh. `npm test` leaves these files to this lane.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f dist/index.js ] || npm run build --silent
node scripts/run-tests.mjs test/docs/examples
node_bin=$(scripts/ci/install-node.sh 26)
PATH="$(dirname "$node_bin"):$PATH" "$node_bin" scripts/run-tests.mjs test/docs/examples
