#!/usr/bin/env bash
# The official MCP conformance suite (both pinned runners) against our conformance client. The
# runner needs Node 22+, installed beside the project; the client itself runs on the current Node.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFORMANCE_NODE=$(scripts/ci/install-node.sh 22) npm run conformance
