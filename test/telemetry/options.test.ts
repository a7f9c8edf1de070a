// The `telemetry` option: checked like every option, and given by a pool to its servers.
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { Client, ClientPool, ConfigError } from '../../src/index.js';
import { exporter, provider, spansNamed } from './otel.js';
import { traceServer } from './servers.js';

beforeEach(() => exporter.reset());
after(() => provider.shutdown());

const transport = { type: 'stdio', command: process.execPath, args: ['server.mjs'] } as const;

test('a telemetry option that is not one throws ConfigError naming the key', () => {
  const cases: [unknown, string, RegExp][] = [
    ['yes', 'telemetry', /telemetry must be true, false or \{ tracerProvider\?/],
    [
      { tracerProvider: {} },
      'telemetry.tracerProvider',
      /an OpenTelemetry TracerProvider \(an object with getTracer\(\)\)/,
    ],
    [
      { recordArgs: true },
      'telemetry.recordArgs',
      /telemetry.recordArgs is not an option; the options are tracerProvider, recordArguments, recordResults/,
    ],
    [{ recordResults: 'yes' }, 'telemetry.recordResults', /recordResults/],
  ];
  for (const [telemetry, key, message] of cases) {
    assert.throws(
      () => new Client({ name: 'x', transport, telemetry: telemetry as never }),
      (error: unknown) => error instanceof ConfigError && error.key === key && message.test(error.message),
      `${JSON.stringify(telemetry)}`,
    );
  }
  for (const telemetry of [false, true, {}, undefined]) new Client({ name: 'x', transport, telemetry });
});

test("a pool's telemetry reaches every server that sets none of its own", async () => {
  const server = await traceServer('stdio', 'modern');
  await using pool = new ClientPool({
    telemetry: { tracerProvider: provider },
    servers: {
      traced: { transport: server.transport },
      untraced: { transport: server.transport, telemetry: false },
    },
  });
  await pool.connect();
  const traced = await pool.callTool({ name: 'traced__trace' });
  const untraced = await pool.callTool({ name: 'untraced__trace' });
  const seen = (result: typeof traced) => JSON.parse((result.content[0] as { text: string }).text);
  const [span, ...others] = spansNamed('tools/call trace');
  assert.equal(others.length, 0);
  assert.equal(span?.attributes['conduit_mcp.server.name'], 'traced');
  assert.match(seen(traced).traceparent, new RegExp(`^00-${span?.spanContext().traceId}-`));
  assert.deepEqual(seen(untraced), {});
});
