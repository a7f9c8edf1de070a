// Every request a CLIENT span by the OpenTelemetry MCP conventions, its context in `params._meta`,
// seen by a real server over stdio and HTTP in both eras; connects and restarts spans too.
import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { after, beforeEach, describe, test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Client, LEGACY_VERSIONS, McpError, MODERN_VERSIONS } from '../../src/index.js';
import { exporter, provider, remoteParent, spanNamed, spansNamed, traceparentOf } from './otel.js';
import { type Era, type Kind, traceServer } from './servers.js';

beforeEach(() => exporter.reset());
after(() => provider.shutdown());

type Seen = { traceparent?: string; tracestate?: string; baggage?: string };
const seenBy = (result: { content: unknown[] }): Seen =>
  JSON.parse((result.content[0] as { text: string }).text) as Seen;

for (const kind of ['stdio', 'http'] as Kind[]) {
  for (const era of ['modern', 'legacy'] as Era[]) {
    describe(`${kind}, ${era} era`, () => {
      test('a tools/call is a CLIENT span whose context the server receives in _meta', async () => {
        const server = await traceServer(kind, era);
        after(server.close);
        await using client = new Client({
          name: 'traced',
          transport: server.transport,
          telemetry: { tracerProvider: provider },
        });
        const parent = remoteParent();
        await context.with(parent.context, () => client.connect());
        const result = await context.with(parent.context, () =>
          client.callTool({ name: 'trace', arguments: { city: 'Paris' } }),
        );
        const span = spanNamed('tools/call trace');
        const seen = seenBy(result as { content: unknown[] });
        assert.equal(span.kind, SpanKind.CLIENT);
        assert.equal(span.spanContext().traceId, parent.span.traceId);
        assert.equal(span.parentSpanContext?.spanId, parent.span.spanId);
        assert.equal(seen.traceparent, traceparentOf(span.spanContext()));
        assert.equal(seen.tracestate, 'rojo=00f067aa0ba902b7');
        assert.equal(seen.baggage, 'user=alice');
        const version = era === 'modern' ? MODERN_VERSIONS[0] : LEGACY_VERSIONS[0];
        const expected: Record<string, unknown> = {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'trace',
          'gen_ai.operation.name': 'execute_tool',
          'mcp.protocol.version': version,
          'conduit_mcp.server.name': 'traced',
          'network.transport': kind === 'stdio' ? 'pipe' : 'tcp',
        };
        if (server.url) {
          expected['network.protocol.name'] = 'http';
          expected['server.address'] = '127.0.0.1';
          expected['server.port'] = Number(server.url.port);
        }
        assert.deepEqual(span.attributes, expected);
        assert.equal(span.status.code, SpanStatusCode.UNSET);

        const connect = spanNamed('conduit-mcp connect');
        assert.equal(connect.parentSpanContext?.spanId, parent.span.spanId);
        assert.equal(connect.attributes['conduit_mcp.era'], era);
        assert.equal(connect.attributes['mcp.protocol.version'], version);

        await client.listTools();
        const list = spanNamed('tools/list');
        assert.equal(list.attributes['mcp.method.name'], 'tools/list');
        assert.equal(list.parentSpanContext, undefined, 'no active span: a root span');
      });

      test('a failing call records its error type and status', async () => {
        const server = await traceServer(kind, era);
        after(server.close);
        await using client = new Client({ name: 'failing', transport: server.transport, telemetry: true });
        await client.connect();
        const error = await client.callTool({ name: 'missing' }).catch((caught: unknown) => caught);
        assert.ok(error instanceof McpError && error.code === -32602, String(error));
        const failed = spanNamed('tools/call missing');
        assert.equal(failed.attributes['error.type'], '-32602');
        assert.equal(failed.attributes['rpc.response.status_code'], '-32602');
        assert.equal(failed.status.code, SpanStatusCode.ERROR);
        assert.match(failed.status.message ?? '', /Unknown tool: missing/);

        const toolError = await client.callTool({ name: 'tool-error' });
        assert.equal(toolError.isError, true);
        const errored = spanNamed('tools/call tool-error');
        assert.equal(errored.attributes['error.type'], 'tool_error');
        assert.equal(errored.status.code, SpanStatusCode.ERROR);
      });
    });
  }
}

test('telemetry off: no traceparent is sent, whatever span is active', async () => {
  const server = await traceServer('stdio', 'modern');
  await using client = new Client({ name: 'untraced', transport: server.transport });
  await client.connect();
  const result = await context.with(remoteParent().context, () => client.callTool({ name: 'trace' }));
  assert.deepEqual(seenBy(result as { content: unknown[] }), {});
  assert.deepEqual(exporter.getFinishedSpans(), []);
});

test('arguments and results are recorded only when asked', async () => {
  const server = await traceServer('stdio', 'modern');
  await using quiet = new Client({ name: 'quiet', transport: server.transport, telemetry: true });
  await using verbose = new Client({
    name: 'verbose',
    transport: server.transport,
    telemetry: { recordArguments: true, recordResults: true },
  });
  await Promise.all([quiet.connect(), verbose.connect()]);
  await quiet.callTool({ name: 'tool-error', arguments: { secret: 'kept out' } });
  const [span] = spansNamed('tools/call tool-error');
  assert.ok(span);
  assert.equal(span.attributes['gen_ai.tool.call.arguments'], undefined);
  assert.equal(span.attributes['gen_ai.tool.call.result'], undefined);
  assert.doesNotMatch(JSON.stringify(span.attributes), /kept out/);

  exporter.reset();
  const result = await verbose.callTool({ name: 'tool-error', arguments: { city: 'Paris' } });
  const recorded = spanNamed('tools/call tool-error');
  assert.equal(recorded.attributes['gen_ai.tool.call.arguments'], '{"city":"Paris"}');
  assert.deepEqual(JSON.parse(String(recorded.attributes['gen_ai.tool.call.result'])), result);
});

test('a restart is a reconnect span, linked to the connect span', async () => {
  const server = await traceServer('stdio', 'legacy');
  await using client = new Client({
    name: 'restarting',
    transport: server.transport,
    telemetry: true,
    reconnect: { initialDelay: 10, maxDelay: 10 },
  });
  await client.connect();
  const ready = new Promise((resolve) => client.once('ready', resolve));
  const lost = await client.callTool({ name: 'exit' }).catch((error: Error) => error);
  assert.ok(lost instanceof Error);
  await ready;
  const connect = spanNamed('conduit-mcp connect');
  const reconnect = spanNamed('conduit-mcp reconnect');
  assert.equal(reconnect.attributes['conduit_mcp.reconnect.attempt'], 1);
  assert.equal(reconnect.attributes['conduit_mcp.era'], 'legacy');
  assert.equal(reconnect.parentSpanContext, undefined, 'a restart starts its own trace');
  assert.deepEqual(
    reconnect.links.map((link) => link.context.spanId),
    [connect.spanContext().spanId],
  );
  assert.equal(spanNamed('tools/call exit').attributes['error.type'], 'ConnectionClosedError');
  await client.callTool({ name: 'trace' });
  assert.equal(spansNamed('tools/call trace').length, 1);
});

test("the request is sent in its span's context: what runs under it (an HTTP instrumentation) is its child", async () => {
  const server = await traceServer('stdio', 'modern');
  await using client = new Client({ name: 'nested', transport: server.transport, telemetry: true });
  await client.connect();
  const active: (string | undefined)[] = [];
  const onStart = () => void active.push(trace.getActiveSpan()?.spanContext().spanId);
  const handlers = { start: onStart, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
  const requests = dc.tracingChannel('conduit-mcp:request');
  requests.subscribe(handlers);
  try {
    await client.callTool({ name: 'trace' });
  } finally {
    requests.unsubscribe(handlers);
  }
  assert.deepEqual(active, [spanNamed('tools/call trace').spanContext().spanId]);
});
