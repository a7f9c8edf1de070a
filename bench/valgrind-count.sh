# Sourced by bench/instructions.sh and bench/connect-instructions.sh: one run of a bench driver
# under valgrind, the client process only (children are not followed), with fixed hash and random
# seeds so that V8's start-up costs the same in every run.
#
#   valgrind_count <driver.mjs> [args...]   prints "instructions", or with CACHE_SIM=1 (cachegrind's
#                                           cache and branch simulation, about 2x slower)
#                                           "instructions I1-misses D1-misses mispredicted-branches"
valgrind_count() {
  local out
  out=$(mktemp)
  if [ "${CACHE_SIM:-0}" = 1 ]; then
    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file=/dev/null \
      --smc-check=all-non-file node --single-threaded --hash-seed=1 --random-seed=1 "$@" \
      2>"$out" >/dev/null
    for key in 'I   refs' 'I1  misses' 'D1  misses' 'Mispredicts'; do
      grep "$key:" "$out" | head -1 | sed 's/.*: *\([0-9,]*\).*/\1/' | tr -d ,
    done | tr '\n' ' '
  else
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all-non-file \
      node --single-threaded --hash-seed=1 --random-seed=1 "$@" 2>"$out" >/dev/null
    grep -o 'Collected : [0-9]*' "$out" | grep -o '[0-9]*$'
  fi
  rm -f "$out"
}
