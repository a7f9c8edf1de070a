import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import {
  AbortError,
  AuthError,
  CapabilityError,
  ClientClosedError,
  ConduitError,
  ConfigError,
  ConnectionClosedError,
  ConnectTimeoutError,
  describeCloseReason,
  HttpError,
  isConduitError,
  McpError,
  ProtocolError,
  RequestTimeoutError,
  SkillVerificationError,
  SpawnError,
  UnsupportedProtocolVersionError,
  UsageError,
} from '../src/errors.js';
import * as publicApi from '../src/index.js';
import {
  NameCollisionError,
  ServerUnavailableError,
  StartTimeoutError,
  ToolNotTrustedError,
  UnknownNameError,
} from '../src/pool/errors.js';
import type { CloseReason } from '../src/transport/transport.js';

const cause = new Error('the underlying failure');

// One of each, with the code it must carry.
const EVERY_ERROR: Array<[ConduitError, new (...args: never[]) => ConduitError, string | number]> = [
  [new ConfigError('transport.cwd', 'transport.cwd must be absolute'), ConfigError, 'CONDUIT_CONFIG'],
  [new SpawnError('not found', 'srv', false), SpawnError, 'CONDUIT_SPAWN_FAILED'],
  [new McpError(-32601, 'Method not found'), McpError, -32601],
  [new RequestTimeoutError('tools/call', 1000), RequestTimeoutError, 'CONDUIT_REQUEST_TIMEOUT'],
  [new AbortError('tools/call', 'stop'), AbortError, 'CONDUIT_ABORTED'],
  [new ConnectionClosedError({ type: 'closed' }), ConnectionClosedError, 'CONDUIT_CONNECTION_CLOSED'],
  [new ClientClosedError(undefined), ClientClosedError, 'CONDUIT_CLIENT_CLOSED'],
  [
    new UnsupportedProtocolVersionError(['2025-11-25'], '2026-07-28'),
    UnsupportedProtocolVersionError,
    'CONDUIT_UNSUPPORTED_PROTOCOL_VERSION',
  ],
  [new ProtocolError('bad resultType'), ProtocolError, 'CONDUIT_PROTOCOL'],
  [
    new CapabilityError('resources/subscribe', 'no resources.subscribe'),
    CapabilityError,
    'CONDUIT_CAPABILITY_MISSING',
  ],
  [
    new SkillVerificationError('skill://a/SKILL.md', 'digest', 'digest differs'),
    SkillVerificationError,
    'CONDUIT_SKILL_VERIFICATION',
  ],
  [new UsageError('send() before start()'), UsageError, 'CONDUIT_USAGE'],
  [new ConnectTimeoutError(60_000), ConnectTimeoutError, 'CONDUIT_CONNECT_TIMEOUT'],
  [
    new HttpError('status', 'POST answered HTTP 500', { url: 'https://x/mcp', status: 500 }),
    HttpError,
    'CONDUIT_HTTP',
  ],
  [new AuthError('token', 'refused', { error: 'invalid_grant' }), AuthError, 'CONDUIT_AUTH'],
  [
    new ServerUnavailableError('files', 'failed', 'down'),
    ServerUnavailableError,
    'CONDUIT_SERVER_UNAVAILABLE',
  ],
  [new StartTimeoutError('files', 1000), StartTimeoutError, 'CONDUIT_START_TIMEOUT'],
  [
    new ToolNotTrustedError('files', 'files__read', 'blocked', 'block'),
    ToolNotTrustedError,
    'CONDUIT_TOOL_NOT_TRUSTED',
  ],
  [new NameCollisionError('x', ['a', 'b'], ['x', 'x'], 'tool'), NameCollisionError, 'CONDUIT_NAME_COLLISION'],
  [new UnknownNameError('tool', 'x', 'no tool x'), UnknownNameError, 'CONDUIT_UNKNOWN_NAME'],
];

describe('every error class', () => {
  for (const [error, Class, code] of EVERY_ERROR) {
    test(`${Class.name}: code ${code}, name, brand`, () => {
      assert.equal(error.code, code);
      assert.ok(error instanceof Class);
      assert.ok(error instanceof ConduitError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, Class.name);
      const descriptor = Object.getOwnPropertyDescriptor(error, 'name');
      assert.equal(descriptor?.value, Class.name);
      assert.equal(descriptor?.enumerable, false);
      assert.ok(!Object.keys(error).includes('name'));
      assert.ok(error.stack?.startsWith(`${Class.name}: `), 'the stack starts with the class name');
      assert.equal(String(error), `${Class.name}: ${error.message}`);
      assert.equal(isConduitError(error), true);
      if (typeof code === 'string') assert.match(code, /^CONDUIT_[A-Z_]+$/);
    });
  }

  test('the table holds every error class the package exports', () => {
    const exported = Object.values(publicApi).filter(
      (value) => typeof value === 'function' && value.prototype instanceof ConduitError,
    );
    assert.deepEqual(new Set(exported), new Set(EVERY_ERROR.map(([, Class]) => Class)));
  });

  test('inspect shows no brand and no "name" field', () => {
    const text = inspect(new ConfigError('transport.cwd', 'bad'));
    assert.match(text, /^ConfigError: bad\n/);
    assert.ok(!text.includes('conduit-mcp.error'));
    assert.ok(!/\bname:/.test(text));
  });
});

describe('isConduitError', () => {
  test('is false for anything else', () => {
    const others = [
      new Error('x'),
      new TypeError('x'),
      Object.assign(new Error('x'), { code: 'CONDUIT_CONFIG' }),
      { code: 'CONDUIT_CONFIG', name: 'ConfigError' },
      null,
      undefined,
      'ConfigError',
      42,
    ];
    for (const value of others) assert.equal(isConduitError(value), false, inspect(value));
  });

  test('is true for an error from another copy of the library', async () => {
    const url = new URL('../src/errors.js?another-copy', import.meta.url).href;
    const copy = (await import(url)) as typeof import('../src/errors.js');
    const foreign = new copy.ConfigError('transport.command', 'x');
    assert.ok(!(foreign instanceof ConfigError), 'really another copy');
    assert.equal(isConduitError(foreign), true);
    assert.equal(copy.isConduitError(new ConfigError('k', 'x')), true);
  });
});

describe('context fields and messages', () => {
  test('ConfigError: key, message as given, cause', () => {
    const error = new ConfigError('transport.cwd', 'transport.cwd must be an absolute path, got "rel"', {
      cause,
    });
    assert.equal(error.key, 'transport.cwd');
    assert.equal(error.message, 'transport.cwd must be an absolute path, got "rel"');
    assert.equal(error.cause, cause);
  });

  test('SpawnError: command, retryable, cause, server prefix', () => {
    const error = new SpawnError('srv was not found in PATH', 'srv', false, { server: 'files', cause });
    assert.equal(error.message, 'files: srv was not found in PATH');
    assert.equal(error.command, 'srv');
    assert.equal(error.retryable, false);
    assert.equal(error.cause, cause);
    assert.equal(new SpawnError('EAGAIN', 'srv', true).retryable, true);
    assert.equal(new SpawnError('EAGAIN', 'srv', true).message, 'EAGAIN');
  });

  test('McpError: the numeric code, message and data, as the server sent them', () => {
    const data = { supported: ['2025-11-25'], requested: '2026-07-28' };
    const error = new McpError(-32022, 'Unsupported protocol version', data, { server: 'files' });
    assert.equal(error.code, -32022);
    assert.equal(typeof error.code, 'number');
    assert.equal(error.data, data);
    assert.equal(error.message, 'files: Unsupported protocol version');
    const bare = new McpError(-32603, 'Internal error');
    assert.equal(bare.data, undefined);
    assert.equal(bare.message, 'Internal error');
  });

  test('RequestTimeoutError: method, timeout, and which timeout fired', () => {
    const error = new RequestTimeoutError('tools/call', 1500, { server: 'files' });
    assert.equal(error.method, 'tools/call');
    assert.equal(error.timeout, 1500);
    assert.equal(error.message, 'files: tools/call got no answer within 1500 ms');
    assert.equal(
      new RequestTimeoutError('tools/call', 60000, { total: true }).message,
      'tools/call got no answer within 60000 ms (maxTotalTimeout)',
    );
  });

  test('AbortError: the Node name, method, and the signal reason as cause', () => {
    const controller = new AbortController();
    controller.abort(new Error('user pressed stop'));
    const error = new AbortError('tools/call', controller.signal.reason, { server: 'files' });
    assert.equal(error.name, 'AbortError');
    assert.equal(error.method, 'tools/call');
    assert.equal(error.cause, controller.signal.reason);
    assert.equal(error.message, 'files: tools/call was aborted');
    const plain = AbortSignal.abort();
    assert.equal(new AbortError('ping', plain.reason).cause, plain.reason);
    assert.equal(new AbortError('ping', 'why').message, 'ping was aborted');
  });

  test('ConnectionClosedError: reason, method, cause only when the reason has an error', () => {
    const exited: CloseReason = { type: 'exit_status', status: 1, signal: null };
    const error = new ConnectionClosedError(exited, { server: 'files', method: 'tools/list' });
    assert.equal(error.reason, exited);
    assert.equal(
      error.message,
      'files: tools/list failed: connection closed (the server exited with status 1)',
    );
    assert.ok(!('cause' in error), 'no cause property when there is no error');
    assert.ok(!inspect(error).includes('[cause]'));

    const pipe = new Error('write EPIPE');
    const broken = new ConnectionClosedError({ type: 'stream_error', error: pipe });
    assert.equal(broken.cause, pipe);
    assert.equal(broken.message, 'connection closed (a pipe to the server failed: write EPIPE)');
    const notFound = new Error('srv not found');
    assert.equal(new ConnectionClosedError({ type: 'spawn_failed', error: notFound }).cause, notFound);
  });

  test('ClientClosedError: reason, with or without a last close', () => {
    const closed = new ClientClosedError(undefined, { server: 'files' });
    assert.equal(closed.reason, undefined);
    assert.equal(closed.message, 'files: the client is closed');
    const reason: CloseReason = { type: 'exit_status', status: null, signal: 'SIGKILL' };
    const gaveUp = new ClientClosedError(reason, { method: 'tools/call' });
    assert.equal(gaveUp.reason, reason);
    assert.equal(
      gaveUp.message,
      'tools/call failed: the client is closed, last close: the server was killed by SIGKILL',
    );
  });

  test('UnsupportedProtocolVersionError: supported and requested', () => {
    const error = new UnsupportedProtocolVersionError(['2025-06-18', '2025-11-25'], '2026-07-28', {
      server: 'files',
    });
    assert.deepEqual(error.supported, ['2025-06-18', '2025-11-25']);
    assert.equal(error.requested, '2026-07-28');
    assert.equal(
      error.message,
      'files: no common protocol version: we asked for 2026-07-28, the server supports 2025-06-18, 2025-11-25',
    );
    assert.equal(
      new UnsupportedProtocolVersionError([], '2026-07-28').message,
      'no common protocol version: we asked for 2026-07-28, the server supports none it named',
    );
  });

  test('ProtocolError: message, cause, server prefix', () => {
    const error = new ProtocolError('resultType "later" is unknown', { server: 'files', cause });
    assert.equal(error.message, 'files: resultType "later" is unknown');
    assert.equal(error.cause, cause);
    assert.ok(!('cause' in new ProtocolError('x')));
  });

  test('CapabilityError: method, server prefix', () => {
    const error = new CapabilityError(
      'resources/subscribe',
      'the server does not declare resources.subscribe',
      {
        server: 'files',
      },
    );
    assert.equal(error.method, 'resources/subscribe');
    assert.equal(error.message, 'files: the server does not declare resources.subscribe');
  });

  test('an empty server name adds no prefix', () => {
    const error = new RequestTimeoutError('ping', 5, { server: '' });
    assert.equal(error.message, 'ping got no answer within 5 ms');
    assert.equal(error.server, undefined);
  });
});

describe('error.server', () => {
  const server = 'files';
  // Every class that can concern one server, made the way the library makes it for one.
  const aboutOne: ConduitError[] = [
    new ConfigError('transport.env.TOKEN', 'the Secret failed', { server }),
    new SpawnError('not found', 'srv', false, { server }),
    new McpError(-32601, 'Method not found', undefined, { server }),
    new RequestTimeoutError('tools/call', 1000, { server }),
    new AbortError('tools/call', 'stop', { server }),
    new ConnectionClosedError({ type: 'closed' }, { server }),
    new ClientClosedError(undefined, { server }),
    new UnsupportedProtocolVersionError(['2025-11-25'], '2026-07-28', { server }),
    new ProtocolError('bad resultType', { server }),
    new CapabilityError('resources/subscribe', 'no resources.subscribe', { server }),
    new SkillVerificationError('skill://a/SKILL.md', 'digest', 'digest differs', { server }),
    new UsageError('tools/call: options.timeout must be a duration', { server }),
    new ConnectTimeoutError(60_000, { server }),
    new HttpError('status', 'POST answered HTTP 500', { url: 'https://x/mcp', status: 500 }, { server }),
    new AuthError('token', 'refused', { server, error: 'invalid_grant' }),
    new ServerUnavailableError(server, 'failed', 'down'),
    new StartTimeoutError(server, 1000),
    new ToolNotTrustedError(server, 'x__read', 'awaiting_approval', 'reapprove'),
  ];

  test('every class that can concern one server carries it as a property and names it in the message once', () => {
    const classes = new Set(aboutOne.map((error) => error.constructor));
    for (const [, Class] of EVERY_ERROR) {
      if (Class === NameCollisionError || Class === UnknownNameError) continue;
      assert.ok(classes.has(Class), `${Class.name} is checked`);
    }
    for (const error of aboutOne) {
      assert.equal(error.server, server, error.name);
      assert.ok(error.message.startsWith(`${server}: `), `${error.name}: ${error.message}`);
      assert.ok(!error.message.startsWith(`${server}: ${server}:`), `${error.name}: ${error.message}`);
      assert.equal(Object.getOwnPropertyDescriptor(error, 'server')?.enumerable, true, error.name);
    }
  });

  test('an error about no one server has none', () => {
    for (const [error] of EVERY_ERROR) {
      if (
        error instanceof ServerUnavailableError ||
        error instanceof StartTimeoutError ||
        error instanceof ToolNotTrustedError
      )
        continue;
      assert.equal(error.server, undefined, error.name);
    }
  });
});

describe('describeCloseReason', () => {
  const cases: Array<[CloseReason, string]> = [
    [{ type: 'closed' }, 'closed by the client'],
    [{ type: 'exit_status', status: 0, signal: null }, 'the server exited with status 0'],
    [{ type: 'exit_status', status: 3, signal: null }, 'the server exited with status 3'],
    [{ type: 'exit_status', status: null, signal: 'SIGTERM' }, 'the server was killed by SIGTERM'],
    [
      { type: 'spawn_failed', error: new Error('spawn srv ENOENT') },
      'the server could not be started: spawn srv ENOENT',
    ],
    [{ type: 'message_too_large', limit: 1024 }, 'the server wrote a message larger than 1024 bytes'],
    [
      { type: 'junk_output', limit: 10 },
      'the server wrote more than 10 lines in a row that are not JSON-RPC',
    ],
    [
      { type: 'write_queue_full', limit: 4096 },
      'the server stopped reading: more than 4096 bytes were waiting to be written',
    ],
    [
      { type: 'stream_error', error: new Error('read ECONNRESET') },
      'a pipe to the server failed: read ECONNRESET',
    ],
    [
      { type: 'connect_failed', error: new Error('initialize got no answer within 10 ms') },
      'the connection attempt failed: initialize got no answer within 10 ms',
    ],
    [
      { type: 'session_expired', status: 404 },
      'the server ended the session (HTTP 404 to our MCP-Session-Id)',
    ],
    [
      {
        type: 'http_error',
        error: new HttpError('stream_broken', 'GET http://127.0.0.1/mcp: the HTTP+SSE event stream ended', {
          url: 'http://127.0.0.1/mcp',
        }),
      },
      'GET http://127.0.0.1/mcp: the HTTP+SSE event stream ended',
    ],
    [{ type: 'ping_timeout', timeout: 500 }, 'the server did not answer a ping within 500 ms'],
    [{ type: 'ended' }, 'the other end of the transport went away'],
    [{ type: 'ended', error: new Error('socket reset') }, 'the transport failed: socket reset'],
  ];
  for (const [reason, text] of cases) {
    test(`${reason.type}${reason.type === 'exit_status' ? ` ${reason.status ?? reason.signal}` : ''}`, () => {
      assert.equal(describeCloseReason(reason), text);
    });
  }

  test('covers every close reason type', () => {
    const types: Record<CloseReason['type'], true> = {
      closed: true,
      exit_status: true,
      spawn_failed: true,
      message_too_large: true,
      junk_output: true,
      write_queue_full: true,
      stream_error: true,
      connect_failed: true,
      ping_timeout: true,
      session_expired: true,
      http_error: true,
      ended: true,
    };
    assert.deepEqual(new Set(cases.map(([reason]) => reason.type)), new Set(Object.keys(types)));
  });
});
