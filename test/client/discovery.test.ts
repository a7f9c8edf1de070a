// Era discovery as a unit, over an in-memory transport: the probe read through a transport
// kind's DiscoveryRules (stdio's: silence or any error means legacy; a kind may say otherwise).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Connection } from '../../src/client/connection.js';
import {
  chooseSession,
  classifyProbe,
  holdEarlyRequests,
  ProbeExitError,
} from '../../src/client/eras/discovery.js';
import type { SessionContext } from '../../src/client/eras/session.js';
import { ConnectionClosedError, McpError, RequestTimeoutError } from '../../src/errors.js';
import { STDIO_DISCOVERY } from '../../src/transport/stdio/stdio-kind.js';
import type { DiscoveryRules } from '../../src/transport/transport.js';
import { MemoryServer, type MemoryServerOptions, RpcError } from '../helpers/memory-server.js';
import { MemoryTransport } from '../helpers/memory-transport.js';
import { waitFor } from '../helpers/wait.js';

const context: SessionContext = {
  name: 'discovery',
  clientInfo: { name: 'test', version: '0' },
  handlers: {},
  capabilities: {},
  requestTimeout: 5000,
  logLevel: () => undefined,
  warn: () => {},
};

/** A started connection to a MemoryServer. */
async function pair(options: MemoryServerOptions) {
  const transport = new MemoryTransport();
  const server = new MemoryServer(transport.peer, options);
  const connection = new Connection(transport, { name: 'discovery', requestTimeout: 5000 });
  await transport.start();
  return { transport, server, connection };
}

/** The session opened as the Supervisor opens it: early server requests held, then the era chosen. */
async function establish(connection: Connection, discovery: DiscoveryRules, probeTimeout = 50) {
  const held = holdEarlyRequests(connection);
  const session = await chooseSession(connection, context, {
    mode: 'auto',
    discovery,
    probeTimeout,
    memory: undefined,
    handshakeTimeout: 5000,
  });
  return held.release(session, context.name);
}

/** Rules under which neither silence nor an unrecognised error says anything about the era. */
const NO_ERA_SIGNAL: DiscoveryRules = {
  probeTimeout: 50,
  probeTimeoutMeansLegacy: false,
  probeErrorMeansLegacy: (error) => !(error instanceof McpError && error.code === -32603),
  closeDuringProbeMeansLegacy: false,
};

/** A server that exits when the first message is not initialize (some strict legacy ones do). */
const exitsOnProbe: MemoryServerOptions = {
  era: 'legacy',
  handlers: {
    'server/discover': (_params, _request, server) => {
      server.peer.close({ type: 'exit_status', status: 1, signal: null });
      return undefined;
    },
  },
};

describe('the probe under stdio rules', () => {
  test('a DiscoverResult means modern; the era memory keeps the era and version (the next process confirms it)', async () => {
    const { connection, transport } = await pair({ era: 'modern' });
    const session = await establish(connection, STDIO_DISCOVERY);
    assert.equal(session.era, 'modern');
    assert.equal(session.changeNotifications, 'listen');
    assert.deepEqual(session.memory, { era: 'modern', version: '2026-07-28' });
    await transport.close();
  });

  test('-32601 to server/discover means legacy: initialize follows at once', async () => {
    const { connection, server, transport } = await pair({ era: 'legacy' });
    const session = await establish(connection, STDIO_DISCOVERY, 60_000);
    assert.equal(session.era, 'legacy');
    assert.equal(session.changeNotifications, 'unsolicited');
    assert.deepEqual(session.memory, { era: 'legacy', version: '2025-11-25' });
    assert.equal(server.requests('initialize').length, 1);
    await waitFor(() => server.notifications('notifications/initialized').length === 1, 'initialized');
    await transport.close();
  });

  test('silence past probeTimeout means legacy', async () => {
    const { connection, server, transport } = await pair({
      era: 'legacy',
      handlers: { 'server/discover': () => undefined },
    });
    const session = await establish(connection, STDIO_DISCOVERY, 50);
    assert.equal(session.era, 'legacy');
    assert.equal(server.requests('initialize').length, 1);
    await transport.close();
  });
});

test('stdio rules: a server that exits during the probe is restarted straight into initialize', async () => {
  const { connection } = await pair(exitsOnProbe);
  await assert.rejects(
    establish(connection, STDIO_DISCOVERY, 60_000),
    (error) => error instanceof ProbeExitError && error.cause instanceof ConnectionClosedError,
  );
});

describe('the probe under rules where failures carry no era signal', () => {
  test('a close during the probe is an ordinary failed attempt (ConnectionClosedError)', async () => {
    const { connection, server } = await pair(exitsOnProbe);
    await assert.rejects(
      establish(connection, NO_ERA_SIGNAL, 60_000),
      (error) => error instanceof ConnectionClosedError && error.reason.type === 'exit_status',
    );
    assert.equal(server.requests('initialize').length, 0);
  });

  test('silence past probeTimeout fails the attempt with RequestTimeoutError; no initialize is sent', async () => {
    const { connection, server, transport } = await pair({
      era: 'legacy',
      handlers: { 'server/discover': () => undefined },
    });
    await assert.rejects(
      establish(connection, NO_ERA_SIGNAL, 50),
      (error) =>
        error instanceof RequestTimeoutError && error.method === 'server/discover' && error.timeout === 50,
    );
    assert.equal(server.requests('initialize').length, 0);
    assert.equal(connection.pendingCount, 0, 'the probe was abandoned');
    await transport.close();
  });

  test('an error the rules do not read as legacy fails the attempt with it; no initialize is sent', async () => {
    const { connection, server, transport } = await pair({
      era: 'legacy',
      handlers: {
        'server/discover': () => {
          throw new RpcError(-32603, 'try again later');
        },
      },
    });
    await assert.rejects(
      establish(connection, NO_ERA_SIGNAL, 60_000),
      (error) => error instanceof McpError && error.code === -32603,
    );
    assert.equal(server.requests('initialize').length, 0);
    await transport.close();
  });

  test('an error the rules read as legacy still means legacy', async () => {
    const { connection, transport } = await pair({ era: 'legacy' });
    const session = await establish(connection, NO_ERA_SIGNAL, 60_000);
    assert.equal(session.era, 'legacy');
    await transport.close();
  });

  test('classifyProbe: an unrecognised error is fatal where the rules say so, legacy by default', () => {
    const error = new McpError(-32603, 'internal');
    assert.equal(classifyProbe({ error }, '2026-07-28').kind, 'legacy');
    assert.deepEqual(classifyProbe({ error }, '2026-07-28', NO_ERA_SIGNAL.probeErrorMeansLegacy), {
      kind: 'fatal',
      error,
    });
    const other = new McpError(-32601, 'Method not found');
    assert.equal(
      classifyProbe({ error: other }, '2026-07-28', NO_ERA_SIGNAL.probeErrorMeansLegacy).kind,
      'legacy',
    );
    const network = new Error('socket hang up');
    assert.deepEqual(
      classifyProbe({ error: network }, '2026-07-28', () => false),
      { kind: 'fatal', error: network },
    );
  });
});
