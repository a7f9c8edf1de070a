#!/usr/bin/env bash
# The lifecycle chaos property with more runs than a plain run gives it: user callbacks that throw,
# reject or hang at random while servers crash and restart (test/reliability/chaos.test.ts).
# Then the HTTP chaos suite with more random seeds (test/reliability/http-chaos.test.ts, about a
# second a seed). Both again on the newest line, with their default runs and seeds. `npm test`
# leaves both files to this lane. Under the escape guard, like every test.
# Usage: scripts/ci/lifecycle-chaos.sh [runs, default 25] [HTTP random seeds, default 10]
set -euo pipefail
cd "$(dirname "$0")/../.."
CHAOS_USER_RUNS="${1:-25}" node scripts/run-tests.mjs reliability/chaos
CHAOS_HTTP_RANDOM_SEEDS="${2:-10}" node scripts/run-tests.mjs reliability/http-chaos
node_bin=$(scripts/ci/install-node.sh 26)
PATH="$(dirname "$node_bin"):$PATH" "$node_bin" scripts/run-tests.mjs reliability/chaos reliability/http-chaos
