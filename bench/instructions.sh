#!/usr/bin/env bash
# Instructions per call of two builds of conduit-mcp, counted by valgrind (callgrind): the same for
# the same work on a loaded machine, unlike times. Counts the client process only (the server is a
# child valgrind does not follow): (count(warm-up + N calls) - count(warm-up calls)) / N, so that
# start-up, connect and most of the JIT's compiling cancel out; fixed hash and random seeds, so that
# V8's start-up (its hash seed search) costs the same in both runs.
#
#   bench/instructions.sh <dir A> <dir B> [era] [calls] [in-flight] [warm-up calls]
#   e.g. bench/instructions.sh .tmp/before/dist dist legacy 16000 1 4000
#   A dir may be `raw`: the raw pipe's loop (bench/calls.mjs raw), the floor.
#   CACHE_SIM=1: cachegrind with its cache and branch simulation instead (slower, about 2x): per
#   call also the L1 instruction and data misses and the mispredicted branches, which the
#   instruction count alone does not show (the same count can take more cycles).
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 era=${3:-modern} calls=${4:-16000} inflight=${5:-1} warmup=${6:-4000}
# shellcheck source=bench/valgrind-count.sh
. bench/valgrind-count.sh
count() { # dir calls -> "instructions [I1 misses D1 misses mispredicts]"
  valgrind_count bench/calls.mjs "$1" "$era" "$2" "$inflight"
}
for dir in "$a" "$b"; do
  read -r -a before <<<"$(count "$dir" "$warmup")"
  read -r -a after <<<"$(count "$dir" $((warmup + calls)))"
  line="$dir $era calls=$calls in-flight=$inflight: $(( (after[0] - before[0]) / calls )) instructions per call"
  if [ "${#after[@]}" -gt 1 ]; then
    line+=", $(( (after[1] - before[1]) / calls )) I1 misses, $(( (after[2] - before[2]) / calls )) D1 misses,"
    line+=" $(( (after[3] - before[3]) / calls )) mispredicted branches"
  fi
  echo "$line"
done
