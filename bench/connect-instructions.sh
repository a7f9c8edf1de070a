#!/usr/bin/env bash
# Instructions per modern HTTP connect (new Client, connect() to ready, close()) of builds of
# conduit-mcp and of the raw floor, counted by valgrind (callgrind) in the client process only (the
# HTTP bench server is a child valgrind does not follow): (count(warm-up + N) - count(warm-up)) / N,
# with fixed hash and random seeds, as bench/instructions.sh does for calls.
#
#   bench/connect-instructions.sh <dir A | raw> [<dir B | raw> ...] [-- connects warm-up]
#   e.g. bench/connect-instructions.sh raw .tmp/before/dist dist -- 200 50
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
connects=${1:-200} warmup=${2:-50}
# shellcheck source=bench/valgrind-count.sh
. bench/valgrind-count.sh
count() { # dir connects -> instructions
  CACHE_SIM=0 valgrind_count bench/connects.mjs "$1" "$2"
}
for dir in "${dirs[@]}"; do
  before=$(count "$dir" "$warmup")
  after=$(count "$dir" $((warmup + connects)))
  echo "$dir connects=$connects warm-up=$warmup: $(( (after - before) / connects )) instructions per connect"
done
