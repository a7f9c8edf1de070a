// Every error path a client can take, each with a Secret in its server's env, for the secrets test.
// Run in the test process (errors, events, diagnostics channels) and in a host process started with
// NODE_DEBUG=conduit-mcp (the debug log): test/fixtures/hosts/secret-paths.ts.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  AbortError,
  Client,
  ClientClosedError,
  type ClientOptions,
  ConfigError,
  ConnectionClosedError,
  HttpError,
  McpError,
  RequestTimeoutError,
  Secret,
  SpawnError,
} from '../../src/index.js';
import { nodeServer } from './fixtures.js';
import { modern, plainServer, result } from './http.js';

/** Receives everything a user could see or log: errors, event payloads, the client itself. */
export type Observe = (label: string, value: unknown) => void;

const QUICK = { stdinGrace: 200, termGrace: 200, stderr: 'discard' } as const;
const EVENTS = ['ready', 'disconnected', 'reconnecting', 'closed', 'notification', 'log', 'warning'] as const;

/** The same value three ways: a string, a function and an async function. */
export function secretEnv(value: string): Record<string, Secret> {
  return {
    TOKEN: new Secret(value),
    TOKEN_FN: new Secret(() => value),
    TOKEN_ASYNC: new Secret(async () => value),
  };
}

function observed(label: string, options: ClientOptions, observe: Observe): Client {
  const client = new Client(options);
  for (const event of EVENTS) {
    client.on(event, (payload?: unknown) => observe(`${label}: '${event}' event`, payload));
  }
  return client;
}

async function rejection(
  label: string,
  promise: Promise<unknown>,
  expected: abstract new (...args: never[]) => Error,
  observe: Observe,
): Promise<Error> {
  const error = await promise.then(
    () => assert.fail(`${label}: resolved, a rejection was expected`),
    (reason: unknown) => reason as Error,
  );
  assert.ok(error instanceof expected, `${label}: ${String(error)}`);
  observe(`${label}: rejection`, error);
  return error;
}

/**
 * Provokes each error path: spawn failure (missing command, Secret PATH), crash and crash loop,
 * timeouts (request, handshake), abort, a refused optional step (a warning), server error, invalid options next to the Secret, junk
 * output (over the limit, and a careless server printing the Secret), write_queue_full,
 * message_too_large, death by a signal, and a shutdown that needs SIGTERM and SIGKILL.
 * Returns the labels of the paths taken.
 */
export async function provokeEveryErrorPath(
  value: string,
  scratch: string,
  observe: Observe,
): Promise<string[]> {
  const env = secretEnv(value);
  const done: string[] = [];
  const legacy = (args: string[] = [], extra: Partial<ClientOptions['transport']> = {}) => ({
    type: 'stdio' as const,
    ...nodeServer('mcp.mjs', ['--era', 'legacy', ...args], { ...QUICK, env, ...extra }),
  });
  const hostile = (args: string[], extra: Partial<ClientOptions['transport']> = {}) => ({
    type: 'stdio' as const,
    ...nodeServer('hostile.mjs', args, { ...QUICK, env, ...extra }),
  });

  {
    const label = 'spawn failure: missing command';
    const client = observed(
      label,
      { name: 'missing', transport: { type: 'stdio', command: 'conduit-no-such-server-7', env, ...QUICK } },
      observe,
    );
    const connecting = client.connect();
    const waiting = client.request('ping');
    await rejection(label, connecting, SpawnError, observe);
    await rejection(`${label} (waiting request)`, waiting, ClientClosedError, observe);
    observe(`${label}: client`, client);
    await client.close();
    done.push(label);
  }
  {
    const label = 'spawn failure: PATH is a Secret';
    const directory = path.join(scratch, `path-${value}`);
    mkdirSync(directory, { recursive: true });
    const client = observed(
      label,
      {
        name: 'secret-path',
        transport: {
          type: 'stdio',
          command: 'conduit-no-such-server-7',
          env: { ...env, PATH: new Secret(directory) },
          ...QUICK,
        },
      },
      observe,
    );
    const error = await rejection(label, client.connect(), SpawnError, observe);
    assert.match(error.message, /PATH=\[Secret\]/);
    await client.close();
    done.push(label);
  }
  {
    const label = 'crash mid-request, restart, then a crash loop';
    const client = observed(
      label,
      { name: 'crash', transport: legacy(), reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 } },
      observe,
    );
    await client.connect();
    await rejection(
      label,
      client.callTool({ name: 'crash', arguments: { code: 3 } }),
      ConnectionClosedError,
      observe,
    );
    observe(`${label}: result`, await client.callTool({ name: 'echo', arguments: { after: 'restart' } }));
    await client.close();
    const loop = observed(
      `${label} (loop)`,
      {
        name: 'crash-loop',
        transport: legacy(['--exit-at-start', '4']),
        protocol: 'legacy',
        reconnect: { maxReconnects: 2, initialDelay: 10, jitter: 0 },
      },
      observe,
    );
    await rejection(`${label} (loop)`, loop.connect(), ConnectionClosedError, observe);
    await rejection(`${label} (loop, after giving up)`, loop.request('ping'), ClientClosedError, observe);
    await loop.close();
    done.push(label);
  }
  {
    const label = 'timeouts, abort and a server error';
    const client = observed(label, { name: 'timeouts', transport: legacy(), requestTimeout: 5000 }, observe);
    await client.connect();
    await rejection(
      `${label} (timeout)`,
      client.callTool({ name: 'slow', arguments: { steps: 5 } }, { timeout: 50 }),
      RequestTimeoutError,
      observe,
    );
    const controller = new AbortController();
    const aborted = client.callTool({ name: 'slow', arguments: { steps: 5 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the user gave up')), 20);
    await rejection(`${label} (abort)`, aborted, AbortError, observe);
    await rejection(`${label} (server error)`, client.request('no/such/method'), McpError, observe);
    await client.close();
    await rejection(`${label} (after close)`, client.request('ping'), ClientClosedError, observe);
    const silent = observed(
      `${label} (handshake)`,
      {
        name: 'silent',
        transport: { type: 'stdio', ...nodeServer('no-read.mjs', [], { ...QUICK, env }) },
        probeTimeout: 100,
        requestTimeout: 200,
        reconnect: { maxReconnects: 0 },
      },
      observe,
    );
    await rejection(`${label} (handshake)`, silent.connect(), RequestTimeoutError, observe);
    await silent.close();
    // An optional step refused: a warning (event, channel, debug line), the connection kept.
    const refused = observed(
      `${label} (optional step)`,
      { name: 'refused', transport: legacy(['--refuse-set-level']), logLevel: 'info' },
      observe,
    );
    const warned = new Promise((resolve) => refused.once('warning', resolve));
    await refused.connect();
    await warned;
    await refused.close();
    done.push(label);
  }
  {
    const label = 'invalid options next to the Secret';
    const base = { type: 'stdio' as const, command: process.execPath, env };
    const invalid: Array<[string, unknown]> = [
      ['transport.env', { ...base, env: { ...env, BAD: 42 } }],
      [
        'transport.env',
        {
          ...base,
          env: [
            ['TOKEN', env.TOKEN, 'extra'],
            ['OTHER', env.TOKEN_FN],
          ],
        },
      ],
      ['transport.env', { ...base, env: { ...env, 'A=B': env.TOKEN } }],
      ['transport.env', { ...base, env: [[env.TOKEN, 'value']] }],
      ['transport.cwd', { ...base, cwd: 'relative/dir' }],
      ['transport.command', { ...base, command: 'npx -y server' }],
      ['transport.enviroment', { ...base, enviroment: env }],
      ['transport.stderr', { ...base, stderr: { file: 'relative.log' } }],
      ['transport.maxMessageBytes', { ...base, maxMessageBytes: 0 }],
    ];
    for (const [key, transport] of invalid) {
      const error = (() => {
        try {
          new Client({ name: 'config', transport } as ClientOptions);
        } catch (thrown) {
          return thrown;
        }
        return assert.fail(`${key}: no ConfigError`);
      })();
      assert.ok(error instanceof ConfigError && error.key === key, `${key}: ${String(error)}`);
      observe(`${label}: ${key}`, error);
    }
    for (const [key, extra] of [
      ['requestTimeout', { requestTimeout: -1 }],
      ['reconnect.factor', { reconnect: { factor: 0 } }],
      ['handlers.roots', { handlers: { roots: 'yes' } }],
      ['name', { name: '' }],
    ] as const) {
      assert.throws(
        () => new Client({ name: 'config', transport: base, ...extra } as ClientOptions),
        (error) => {
          observe(`${label}: ${key}`, error);
          return error instanceof ConfigError && error.key === key;
        },
      );
    }
    done.push(label);
  }
  {
    const label = 'junk output';
    const over = observed(
      label,
      {
        name: 'junk',
        transport: hostile(['--banner'], { maxJunkLines: 1 }),
        reconnect: { maxReconnects: 0 },
      },
      observe,
    );
    const error = await rejection(label, over.connect(), ConnectionClosedError, observe);
    assert.equal((error as ConnectionClosedError).reason.type, 'junk_output');
    await over.close();
    // A careless server prints its token on stdout: dropped as junk, logged and published without it.
    const careless = observed(
      `${label} (the server prints the Secret)`,
      { name: 'careless', transport: hostile(['--print-env', 'TOKEN']) },
      observe,
    );
    await careless.connect();
    observe(
      `${label} (the server prints the Secret): result`,
      await careless.callTool({ name: 'echo', arguments: { n: 1 } }),
    );
    await careless.close();
    done.push(label);
  }
  {
    const label = 'write_queue_full';
    const client = observed(
      label,
      {
        name: 'stops-reading',
        transport: hostile(['--stop-reading'], { maxWriteQueueBytes: 64 * 1024 }),
        reconnect: { maxReconnects: 0 },
      },
      observe,
    );
    await client.connect();
    const big = 'w'.repeat(8 * 1024);
    const calls = Array.from({ length: 40 }, () =>
      client.callTool({ name: 'echo', arguments: { big } }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    const errors = await Promise.all(calls);
    const full = errors.find(
      (e) => e instanceof ConnectionClosedError && e.reason.type === 'write_queue_full',
    );
    assert.ok(full, 'a request failed with write_queue_full');
    for (const e of errors) observe(`${label}: rejection`, e);
    await client.close();
    done.push(label);
  }
  {
    const label = 'message_too_large';
    const client = observed(
      label,
      {
        name: 'flood',
        transport: {
          type: 'stdio',
          ...nodeServer('flood.mjs', [], { ...QUICK, env, maxMessageBytes: 64 * 1024 }),
        },
        reconnect: { maxReconnects: 0 },
      },
      observe,
    );
    const error = await rejection(label, client.connect(), ConnectionClosedError, observe);
    assert.equal((error as ConnectionClosedError).reason.type, 'message_too_large');
    await client.close();
    done.push(label);
  }
  {
    const label = 'killed by a signal, then a shutdown that needs SIGTERM and SIGKILL';
    const client = observed(
      label,
      { name: 'signals', transport: hostile([]), reconnect: { maxReconnects: 0 } },
      observe,
    );
    await client.connect();
    await rejection(
      label,
      client.callTool({ name: 'die', arguments: { signal: 'SIGKILL' } }),
      ConnectionClosedError,
      observe,
    );
    await client.close();
    const stubborn = observed(
      `${label} (stubborn)`,
      { name: 'stubborn', transport: hostile(['--stubborn']) },
      observe,
    );
    await stubborn.connect();
    const inFlight = stubborn.callTool({ name: 'slow', arguments: { ms: 10_000 } });
    await stubborn.close();
    await rejection(`${label} (stubborn)`, inFlight, ConnectionClosedError, observe);
    done.push(label);
  }
  {
    const label = 'HTTP: a server that echoes the Secret headers, lists a bad tool and redirects away';
    const elsewhere = await plainServer((request, res) => result(res, request, {}));
    const server = await plainServer(
      modern((request, res) => {
        const method = request.message?.method;
        if (method === 'tools/list') {
          const bad = { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Bad Name' } } };
          return result(res, request, { tools: [{ name: 'bad', inputSchema: bad }] });
        }
        if (request.message?.params?.name === 'away') {
          res.writeHead(307, { location: `${elsewhere.origin}/mcp?token=${request.headers['x-token']}` });
          return void res.end();
        }
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(`<h1>Error</h1><p>${request.headers.authorization} ${request.headers['x-token']}</p>`);
      }),
    );
    try {
      const client = observed(
        label,
        {
          name: 'remote',
          transport: {
            type: 'http',
            url: server.url,
            headers: { 'X-Token': new Secret(async () => value) },
            auth: { bearer: new Secret(value) },
          },
          reconnect: { maxReconnects: 0 },
        },
        observe,
      );
      await client.connect();
      observe(`${label}: tools`, await client.listTools());
      await rejection(label, client.callTool({ name: 'echo', arguments: {} }), HttpError, observe);
      await rejection(label, client.callTool({ name: 'away', arguments: {} }), HttpError, observe);
      observe(`${label}: client`, client);
      await client.close();
      assert.equal(elsewhere.seen.length, 0);
    } finally {
      await server.close();
      await elsewhere.close();
    }
    done.push(label);
  }
  return done;
}
