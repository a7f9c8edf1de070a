#!/usr/bin/env bash
# Installs Node from the npm registry's `node` package into a throwaway folder (.tmp/node-<spec>,
# git-ignored; never over the system Node) and prints the path of its binary. The spec is a major
# line (the newest of it) or an exact version. Usage: scripts/ci/install-node.sh 22 | 20.4.0
set -euo pipefail
spec=${1:?usage: install-node.sh <major | exact version>}
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix="$root/.tmp/node-$spec"
bin="$prefix/node_modules/node/bin/node"
matches() { case "$("$bin" --version 2>/dev/null)." in "v$spec."*) return 0 ;; *) return 1 ;; esac; }
if [ ! -x "$bin" ] || ! matches; then
  rm -rf "$prefix" && mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "node@$spec" >&2
fi
matches || { echo "install-node: $bin is not Node $spec" >&2; exit 1; }
echo "$bin"
