// The typical server of the gateway rows: one `echo` tool ({ text } -> one text block holding the
// text) on the official server SDK (`@modelcontextprotocol/server`, McpServer with a zod input
// schema, served by serveStdio), as most MCP servers are built. bench/server.mjs, which answers
// from a template, shows a client's own cost; this one shows what a call costs in real use.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'bench-sdk-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text it is given', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
});
