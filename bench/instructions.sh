#!/usr/bin/env bash
# Instructions per call of two builds of conduit-mcp, counted by valgrind (callgrind): the same for
# the same work on a loaded machine, unlike times. Counts the client process only (the server is a
# child valgrind does not follow): (count(warm-up + N calls) - count(warm-up calls)) / N, so that
# start-up, connect and most of the JIT's compiling cancel out; fixed hash and random seeds, so that
# V8's start-up (its hash seed search) costs the same in both runs.
#
#   bench/instructions.sh <dir A> <dir B> [era] [calls] [in-flight] [warm-up calls]
#   e.g. bench/instructions.sh .tmp/before/dist dist legacy 16000 1 4000
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 era=${3:-modern} calls=${4:-16000} inflight=${5:-1} warmup=${6:-4000}
count() { # dir calls -> instructions
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
    node --single-threaded --hash-seed=1 --random-seed=1 bench/calls.mjs "$1" "$era" "$2" "$inflight" \
    2>"$out" >/dev/null
  grep -o 'Collected : [0-9]*' "$out" | grep -o '[0-9]*$'
  rm -f "$out"
}
for dir in "$a" "$b"; do
  before=$(count "$dir" "$warmup")
  after=$(count "$dir" $((warmup + calls)))
  echo "$dir $era calls=$calls in-flight=$inflight: $(( (after - before) / calls )) instructions per call"
done
