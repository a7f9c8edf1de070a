// Icons (HTTP digest §7 item 60): the host gets only https: and data:image icons; javascript:,
// file:, http:, ftp:, ws:, app schemes and URLs with credentials are left out of serverInfo and
// of every list. A real modern server on loopback sends them.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../src/index.js';
import { isSafeIconSource } from '../../src/protocol/icons.js';
import { DISCOVER_RESULT, plainServer, result } from '../helpers/http.js';

const SAFE = [
  'https://cdn.example.com/icon.png',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:image/svg+xml,<svg/>',
];
const UNSAFE = [
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://cdn.example.com/icon.png',
  'ftp://cdn.example.com/icon.png',
  'ws://cdn.example.com/icon',
  'vscode://settings',
  'data:text/html,<script>alert(1)</script>',
  'https://user:pass@cdn.example.com/icon.png',
  'not a url',
];
const icons = [...SAFE, ...UNSAFE].map((src) => ({ src }));

test('icon sources: https: and data:image only', () => {
  for (const src of SAFE) assert.equal(isSafeIconSource(src), true, src);
  for (const src of UNSAFE) assert.equal(isSafeIconSource(src), false, src);
  assert.equal(isSafeIconSource(undefined), false);
});

test('unsafe icons never reach the host: serverInfo, tools, prompts, resources and templates', async () => {
  const server = await plainServer((request, res) => {
    const method = request.message?.method;
    if (method === 'server/discover') {
      return result(res, request, {
        ...DISCOVER_RESULT,
        capabilities: { tools: {}, prompts: {}, resources: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'iconic', version: '1.0.0', icons } },
      });
    }
    const lists: Record<string, Record<string, unknown>> = {
      'tools/list': { tools: [{ name: 't', inputSchema: { type: 'object' }, icons }] },
      'prompts/list': { prompts: [{ name: 'p', icons }] },
      'resources/list': { resources: [{ uri: 'file:///r', name: 'r', icons }] },
      'resources/templates/list': { resourceTemplates: [{ uriTemplate: 'file:///{x}', name: 'rt', icons }] },
    };
    return result(res, request, { resultType: 'complete', ...lists[String(method)] });
  });
  after(() => server.close());
  const client = new Client({ name: 'icons', transport: { type: 'http', url: server.url } });
  after(() => client.close());
  await client.connect();
  const srcs = (item: unknown) => (item as { icons: Array<{ src: string }> }).icons.map((icon) => icon.src);
  assert.deepEqual(srcs(client.serverInfo), SAFE);
  assert.deepEqual(srcs((await client.listTools()).tools[0]), SAFE);
  assert.deepEqual(srcs((await client.listPrompts()).prompts[0]), SAFE);
  assert.deepEqual(srcs((await client.listResources()).resources[0]), SAFE);
  assert.deepEqual(srcs((await client.listResourceTemplates()).resourceTemplates[0]), SAFE);
});
