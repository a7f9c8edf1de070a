// The OpenTelemetry SDK as an application sets it up, for the tests: a provider with an in-memory
// exporter, the async-hooks context manager (the active span follows awaits) and the W3C
// propagators, all global.
import {
  type Context,
  context,
  createTraceState,
  propagation,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export const exporter = new InMemorySpanExporter();
export const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);

/** A remote parent with a tracestate and a baggage entry, as an incoming request would bring. */
export function remoteParent(): { context: Context; span: SpanContext } {
  const span: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: createTraceState('rojo=00f067aa0ba902b7'),
  };
  const withSpan = trace.setSpanContext(context.active(), span);
  const baggage = propagation.createBaggage({ user: { value: 'alice' } });
  return { context: propagation.setBaggage(withSpan, baggage), span };
}

/** The finished spans named `name`. */
export function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

/** The one finished span named `name` (fails if there is none or more than one). */
export function spanNamed(name: string): ReadableSpan {
  const spans = spansNamed(name);
  if (spans.length !== 1) {
    const names = exporter.getFinishedSpans().map((span) => span.name);
    throw new Error(`${spans.length} spans named ${name}; the spans: ${names.join(', ')}`);
  }
  return spans[0]!;
}

/** The W3C traceparent of a sampled span context. */
export function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`;
}
