#!/usr/bin/env bash
# The conduit-mcp command as a user meets it: its tests spawn the built command with pipes and,
# for what only a terminal shows (elicitation forms, progress, the shell's completion and
# history), under a real pseudo-terminal made by util-linux `script`, which must be installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v script >/dev/null || { echo "scripts/ci/cli.sh: util-linux 'script' is missing (apt-get install bsdutils)" >&2; exit 1; }
[ -f dist/cli/main.js ] || npm run build --silent
node scripts/run-tests.mjs test/cli/
