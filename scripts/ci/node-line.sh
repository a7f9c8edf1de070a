#!/usr/bin/env bash
# Runs the whole test suite (already type-checked, linted and built by `npm test`) on another Node
# line, installed by install-node.sh, with that Node first on PATH so that every server the tests
# start runs on it too. Usage: scripts/ci/node-line.sh 24
set -euo pipefail
cd "$(dirname "$0")/../.."
node_bin=$(scripts/ci/install-node.sh "$1")
PATH="$(dirname "$node_bin"):$PATH" "$node_bin" scripts/run-tests.mjs
