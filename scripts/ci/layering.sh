#!/usr/bin/env bash
# The layering of ARCHITECTURE.md, checked in the imports (test/layering.test.ts): seconds, no process.
set -euo pipefail
cd "$(dirname "$0")/../.."

# src/serve (conduit-mcp serve) stands on the library's public face: src/index.ts, plus the JSONC
# reader and ConfigError for its filter keys, and the stdio framer, the JSON-RPC classifier and the
# serialiser for what it reads from and writes to its hosts (host-stdio.ts, http-direct.ts). The
# MCP server library is imported there only, and src/serve is loaded by the CLI's dynamic import()
# only, so the library and the command pay nothing for it until `serve` runs.
serve_imports=$(grep -hoE "from '[^']+';" src/serve/*.ts | grep -oE "'[^']+'" | tr -d "'" |
  grep -vE "^(\.\./index\.js|\.\./config/jsonc\.js|\.\./errors\.js|\.\./jsonrpc/serialize\.js|\.\./jsonrpc/classify\.js|\.\./transport/stdio/framer\.js|\./[a-z-]+\.js|node:[a-z/]+|@modelcontextprotocol/server(/stdio)?)$" || true)
if [ -n "$serve_imports" ]; then
  echo "layering: src/serve imports what it may not (only ../index.js, ../config/jsonc.js, ../errors.js, its own files, node: and @modelcontextprotocol/server): $serve_imports" >&2
  exit 1
fi
outside=$(grep -rlE "from '(@modelcontextprotocol/server[^']*|[./]+/serve/[^']+)'" src --include='*.ts' | grep -v '^src/serve/' || true)
if [ -n "$outside" ]; then
  echo "layering: only src/serve may import @modelcontextprotocol/server or src/serve statically (the CLI loads it with import()): $outside" >&2
  exit 1
fi

exec node scripts/run-tests.mjs layering.test
