// Elicitation and sampling rules (§f items 38, 43, 45, 47, 50), in both eras, over the memory
// transport: legacy as server requests, modern as input_required rounds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, type ClientOptions } from '../../src/index.js';
import type { JsonRpcMessage, RequestId } from '../../src/jsonrpc/messages.js';
import { type MemoryServer, memoryServers, RpcError } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

/** The sep1034 form: a default of every primitive type and an enum. */
const FORM_WITH_DEFAULTS = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
};

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

/** Sends a legacy server request and waits for the client's answer. */
async function ask(server: MemoryServer, id: RequestId, method: string, params: object): Promise<Answer> {
  server.peer.send({ jsonrpc: '2.0', id, method, params } as JsonRpcMessage);
  const answered = () =>
    server.peer.received.find((message) => 'id' in message && message.id === id && !('method' in message));
  await waitFor(() => answered() !== undefined, `the answer to ${method}`);
  return answered() as Answer;
}

async function legacyClient(options: Partial<ClientOptions>) {
  const { spec, servers } = memoryServers({ era: 'legacy', capabilities: { tools: {} } });
  const client = new Client({ name: 'elicit', transport: spec, ...options });
  await client.connect();
  return { client, server: servers[0]! };
}

function initializeCapabilities(server: MemoryServer) {
  return server.requests('initialize')[0]!.params!.capabilities;
}

describe('elicitation, legacy', () => {
  test('item 38: a request without mode is a form: the handler sees mode form', async () => {
    const seen: unknown[] = [];
    const { client, server } = await legacyClient({
      handlers: {
        elicitation: async (params) => {
          seen.push(params.mode);
          return { action: 'decline' };
        },
      },
    });
    await using _ = client;
    const answer = await ask(server, 1, 'elicitation/create', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: {} },
    });
    assert.deepEqual(answer.result, { action: 'decline' });
    assert.deepEqual(seen, ['form']);
    assert.deepEqual(initializeCapabilities(server), { elicitation: { form: {} } });
  });

  test('item 43: string, integer, number, enum and boolean defaults fill what the user left out', async () => {
    const { client, server } = await legacyClient({
      handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }) },
    });
    await using _ = client;
    const before = structuredClone(FORM_WITH_DEFAULTS);
    const answer = await ask(server, 2, 'elicitation/create', {
      message: 'Who?',
      requestedSchema: FORM_WITH_DEFAULTS,
    });
    assert.deepEqual(answer.result, {
      action: 'accept',
      content: { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true },
    });
    assert.deepEqual(FORM_WITH_DEFAULTS, before, 'the server’s schema is left unchanged');
  });

  test('item 43: an answer that does not match requestedSchema is not sent as accepted', async () => {
    const { client, server } = await legacyClient({
      handlers: { elicitation: async () => ({ action: 'accept', content: { age: 'thirty' } }) },
    });
    await using _ = client;
    const answer = await ask(server, 3, 'elicitation/create', {
      message: 'Age?',
      requestedSchema: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] },
    });
    assert.equal(answer.result, undefined);
    assert.match(answer.error!.message, /does not match the server's requestedSchema \(#\/age: /);
  });

  test('a handler answer that is not an ElicitResult is an error, not a malformed result', async () => {
    const { client, server } = await legacyClient({ handlers: { elicitation: async () => ({ ok: 1 }) } });
    await using _ = client;
    const answer = await ask(server, 4, 'elicitation/create', { message: 'x', requestedSchema: {} });
    assert.match(answer.error!.message, /must resolve with \{ action: 'accept' \| 'decline' \| 'cancel'/);
  });

  test('item 45: URL mode not declared: -32602, the handler is not called', async () => {
    let called = false;
    const { client, server } = await legacyClient({
      handlers: {
        elicitation: async () => {
          called = true;
          return { action: 'accept' };
        },
      },
    });
    await using _ = client;
    const answer = await ask(server, 5, 'elicitation/create', {
      mode: 'url',
      elicitationId: 'e1',
      url: 'https://example.com/auth',
      message: 'Sign in',
    });
    assert.equal(answer.error?.code, -32602);
    assert.match(answer.error!.message, /"url" is not supported by this client \(declared: form\)/);
    assert.equal(called, false);
    const unknown = await ask(server, 6, 'elicitation/create', { mode: 'telepathy', message: 'x' });
    assert.equal(unknown.error?.code, -32602);
  });

  test('item 45: URL mode declared: both modes in the capabilities, the URL request reaches the handler', async () => {
    const seen: unknown[] = [];
    const { client, server } = await legacyClient({
      elicitationModes: ['form', 'url'],
      handlers: {
        elicitation: async (params) => {
          seen.push(params);
          return { action: 'accept', content: { ignored: true } };
        },
      },
    });
    await using _ = client;
    assert.deepEqual(initializeCapabilities(server), { elicitation: { form: {}, url: {} } });
    const params = { mode: 'url', elicitationId: 'e1', url: 'https://example.com/auth', message: 'Sign in' };
    const answer = await ask(server, 7, 'elicitation/create', params);
    assert.deepEqual(answer.result, { action: 'accept' }, 'a URL answer carries no content');
    assert.deepEqual(seen, [params]);
  });

  const urlRequired = {
    elicitations: [
      {
        mode: 'url',
        elicitationId: 'auth-1',
        url: 'https://example.com/connect',
        message: 'Connect your account',
      },
    ],
  };

  test('item 45: -32042 with URL mode: the user completes the URL, unknown completions are ignored, the call is retried', async () => {
    let calls = 0;
    const { spec, servers } = memoryServers({
      era: 'legacy',
      capabilities: { tools: {} },
      handlers: {
        'tools/call': () => {
          calls++;
          if (calls === 1) throw new RpcError(-32042, 'URL elicitation required', urlRequired);
          return { content: [{ type: 'text', text: 'connected' }] };
        },
      },
    });
    const seen: unknown[] = [];
    await using client = new Client({
      name: 'elicit',
      transport: spec,
      elicitationModes: ['form', 'url'],
      handlers: {
        elicitation: async (params) => {
          seen.push(params.elicitationId);
          const server = servers[0]!;
          // A completion of another id and a duplicate: both must be ignored.
          setTimeout(() => {
            server.notify('notifications/elicitation/complete', { elicitationId: 'someone-else' });
            setTimeout(() => {
              server.notify('notifications/elicitation/complete', { elicitationId: 'auth-1' });
              server.notify('notifications/elicitation/complete', { elicitationId: 'auth-1' });
            }, 30);
          }, 10);
          return { action: 'accept' };
        },
      },
    });
    await client.connect();
    const result = await client.callTool({ name: 'connect' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'connected' }]);
    assert.deepEqual(seen, ['auth-1']);
    assert.equal(servers[0]!.requests('tools/call').length, 2);
    assert.equal(client.state, 'ready');
  });

  test('item 45: -32042 without URL mode, or declined: the McpError reaches the caller, no retry', async () => {
    for (const options of [
      { handlers: { elicitation: async () => ({ action: 'accept' }) } },
      {
        elicitationModes: ['form', 'url'] as const,
        handlers: { elicitation: async () => ({ action: 'decline' }) },
      },
    ]) {
      const { spec, servers } = memoryServers({
        era: 'legacy',
        capabilities: { tools: {} },
        handlers: {
          'tools/call': () => {
            throw new RpcError(-32042, 'URL elicitation required', urlRequired);
          },
        },
      });
      await using client = new Client({ name: 'elicit', transport: spec, ...options });
      await client.connect();
      await assert.rejects(client.callTool({ name: 'connect' }), { code: -32042 });
      assert.equal(servers[0]!.requests('tools/call').length, 1);
    }
  });
});

describe('elicitation, modern', () => {
  function askingServer(inputParams: Record<string, unknown>) {
    return memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': (params) =>
          params.inputResponses === undefined
            ? {
                resultType: 'input_required',
                inputRequests: { form: { method: 'elicitation/create', params: inputParams } },
              }
            : { content: [], structuredContent: params.inputResponses as Record<string, unknown> },
      },
    });
  }

  test('items 38 and 43: no mode is a form; defaults are filled into the input response', async () => {
    const { spec } = askingServer({ message: 'Who?', requestedSchema: FORM_WITH_DEFAULTS });
    const modes: unknown[] = [];
    await using client = new Client({
      name: 'elicit',
      transport: spec,
      handlers: {
        elicitation: async (params) => {
          modes.push(params.mode);
          return { action: 'accept', content: { verified: false } };
        },
      },
    });
    await client.connect();
    const result = await client.callTool({ name: 'x' });
    assert.deepEqual(result.structuredContent, {
      form: {
        action: 'accept',
        content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: false },
      },
    });
    assert.deepEqual(modes, ['form']);
  });

  test('an undeclared URL mode fails the call with -32602 naming the declared modes', async () => {
    const { spec } = askingServer({
      mode: 'url',
      elicitationId: 'e',
      url: 'https://example.com',
      message: 'm',
    });
    await using client = new Client({
      name: 'elicit',
      transport: spec,
      handlers: { elicitation: async () => ({ action: 'accept' }) },
    });
    await client.connect();
    await assert.rejects(client.callTool({ name: 'x' }), { code: -32602 });
  });
});

describe('sampling', () => {
  const message = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };
  const reply = { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' };

  test('item 50: tools or toolChoice without sampling.tools declared: -32602, the handler is not called', async () => {
    let called = 0;
    const { client, server } = await legacyClient({
      handlers: {
        sampling: async () => {
          called++;
          return reply;
        },
      },
    });
    await using _ = client;
    assert.deepEqual(initializeCapabilities(server), { sampling: {} });
    const withTools = await ask(server, 1, 'sampling/createMessage', {
      ...message,
      tools: [{ name: 't', inputSchema: { type: 'object' } }],
    });
    assert.equal(withTools.error?.code, -32602);
    assert.match(withTools.error!.message, /did not declare sampling\.tools/);
    const withChoice = await ask(server, 2, 'sampling/createMessage', {
      ...message,
      toolChoice: { mode: 'auto' },
    });
    assert.equal(withChoice.error?.code, -32602);
    assert.equal(called, 0);
  });

  test('item 50: samplingTools declares sampling.tools and lets tool-enabled requests through', async () => {
    const { client, server } = await legacyClient({
      samplingTools: true,
      handlers: { sampling: async () => reply },
    });
    await using _ = client;
    assert.deepEqual(initializeCapabilities(server), { sampling: { tools: {} } });
    const answer = await ask(server, 1, 'sampling/createMessage', {
      ...message,
      tools: [{ name: 't', inputSchema: { type: 'object' } }],
    });
    assert.deepEqual(answer.result, reply);
  });

  test('item 47: a malformed sampling request is refused with -32602 before the handler sees it', async () => {
    let called = 0;
    const { client, server } = await legacyClient({
      handlers: {
        sampling: async () => {
          called++;
          return { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' };
        },
      },
    });
    await using _ = client;
    const cases: Array<[object, RegExp]> = [
      [{ ...message, messages: [] }, /messages must be a non-empty array/],
      [
        { ...message, messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] },
        /messages\[0\]\.role/,
      ],
      [{ ...message, messages: [{ role: 'user', content: 'plain text' }] }, /messages\[0\]\.content/],
      [{ ...message, messages: [{ role: 'user', content: [] }] }, /messages\[0\]\.content/],
      [{ ...message, maxTokens: 0 }, /maxTokens must be a positive integer/],
      [{ messages: message.messages }, /maxTokens/],
    ];
    for (const [index, [params, problem]] of cases.entries()) {
      const answer = await ask(server, 100 + index, 'sampling/createMessage', params);
      assert.equal(answer.error?.code, -32602, JSON.stringify(params));
      assert.match(answer.error!.message, problem);
    }
    assert.equal(called, 0);
    const fine = await ask(server, 200, 'sampling/createMessage', {
      ...message,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image', data: 'AA==', mimeType: 'image/png' },
          ],
        },
      ],
    });
    assert.equal(fine.result?.model, 'm');
  });

  test('item 47: a handler result that is not a CreateMessageResult is an error naming what is missing', async () => {
    const { client, server } = await legacyClient({
      handlers: { sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }) },
    });
    await using _ = client;
    const answer = await ask(server, 1, 'sampling/createMessage', message);
    assert.equal(answer.result, undefined);
    assert.match(answer.error!.message, /lacks model/);
  });
});
