#!/usr/bin/env bash
# Installs the newest Node of one major line from the npm registry's `node` package into a
# throwaway folder (.tmp/node-<major>, git-ignored; never over the system Node) and prints the
# path of its binary. Usage: scripts/ci/install-node.sh 22
set -euo pipefail
major=${1:?usage: install-node.sh <major>}
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix="$root/.tmp/node-$major"
bin="$prefix/node_modules/node/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version | cut -d. -f1)" != "v$major" ]; then
  rm -rf "$prefix" && mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "node@$major" >&2
fi
[ "$("$bin" --version | cut -d. -f1)" = "v$major" ] || { echo "install-node: $bin is not Node $major" >&2; exit 1; }
echo "$bin"
