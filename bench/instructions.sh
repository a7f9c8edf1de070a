#!/usr/bin/env bash
# Instructions per call of two builds of conduit-mcp, counted by valgrind (callgrind): the same for
# the same work on a loaded machine, unlike times. Counts the client process only (the server is a
# child valgrind does not follow), N calls minus 0 calls, so start-up and connect cancel out.
#
#   bench/instructions.sh <dir A> <dir B> [era] [calls] [in-flight]
#   e.g. bench/instructions.sh .tmp/before/dist dist modern 2000 1
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 era=${3:-modern} calls=${4:-2000} inflight=${5:-1}
count() { # dir calls -> instructions
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
    node --single-threaded bench/calls.mjs "$1" "$era" "$2" "$inflight" 2>"$out" >/dev/null
  grep -o 'Collected : [0-9]*' "$out" | grep -o '[0-9]*$'
  rm -f "$out"
}
for dir in "$a" "$b"; do
  zero=$(count "$dir" 0)
  full=$(count "$dir" "$calls")
  echo "$dir $era calls=$calls in-flight=$inflight: $(( (full - zero) / calls )) instructions per call"
done
