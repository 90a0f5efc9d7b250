import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A metric reader a test collects by hand. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * The OpenTelemetry SDK as an app would set it up, exporting to memory: a tracer provider with
 * the in-memory exporter, a meter provider with a reader the test collects, and the
 * AsyncLocalStorage context manager (what `@opentelemetry/sdk-node` registers).
 */
export function otelFixture() {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    exporter,
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    async metrics(): Promise<ResourceMetrics> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics;
    },
    async close() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      context.disable();
    },
  };
}

/** Milliseconds since the epoch of a span's `[seconds, nanoseconds]` time. */
export const millis = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

/** The sum of a counter's points (or the count of a histogram's) matching `attributes`. */
export function pointTotal(
  metrics: ResourceMetrics,
  name: string,
  attributes: Record<string, unknown> = {},
): number {
  let total = 0;
  for (const scope of metrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const point of metric.dataPoints) {
        const matches = Object.entries(attributes).every(
          ([key, value]) => point.attributes[key] === value,
        );
        if (!matches) continue;
        const value = point.value as number | { count: number };
        total += typeof value === 'number' ? value : value.count;
      }
    }
  }
  return total;
}
