#!/usr/bin/env bash
# The API reference: docs/reference is what TypeDoc makes of the comments today, and TypeDoc's
# settings (typedoc.json) fail the build on an undocumented export (test/docs/reference.test.ts,
# on a fixture; `npm test` leaves it to this lane).
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/docs-reference.mjs --check
node scripts/run-tests.mjs test/docs/reference.test.ts
