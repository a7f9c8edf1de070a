#!/usr/bin/env bash
# Runs the test suite (already type-checked, linted and built by `npm test`) on another Node line,
# installed by install-node.sh, with that Node first on PATH so that every server the tests start
# runs on it too. An optional shard (i/n) runs every n-th test file only, so that the lines between
# the oldest and the newest can share the suite within CI's time. The documentation's examples run
# in npm test, on the system's Node: they show the pages work, which the other lines do not change,
# and they are a seventh of the suite's CPU.
# Usage: scripts/ci/node-line.sh 24 [i/n]
set -euo pipefail
cd "$(dirname "$0")/../.."
node_bin=$(scripts/ci/install-node.sh "$1")
PATH="$(dirname "$node_bin"):$PATH" "$node_bin" scripts/run-tests.mjs --without=test/docs/examples- ${2:+"--shard=$2"}
