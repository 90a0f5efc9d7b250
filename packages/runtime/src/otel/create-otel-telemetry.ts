import {
  context,
  isSpanContextValid,
  type MeterProvider,
  metrics,
  ROOT_CONTEXT,
  SpanKind,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { AgentRun, DurableRunEvent, RunTrace } from '@runlight/protocol';
import type { ObservedCause, RunTelemetry } from '../telemetry/run-telemetry';
import { OtelMetrics, secondsBetween } from './otel-metrics';
import { RunSpans } from './run-spans';

export interface OtelTelemetryOptions {
  /** Default: the global provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Default: the global provider (`metrics.getMeterProvider()`); `false`: no metrics. */
  meterProvider?: MeterProvider | false;
  /**
   * Runs this process keeps spans open for at once (executing or paused here). Past it the
   * oldest is let go: its spans end with `runlight.run.continued_elsewhere`. Default 10,000.
   */
  maxRuns?: number;
}

const SCOPE = '@runlight/runtime';
const RUN_SPAN = 'invoke_agent runlight.run';

/**
 * Spans and metrics of every run this runtime executes, projected from its durable facts
 * through `@opentelemetry/api` only (bring your own SDK and exporter). Pass it as the runtime's
 * `telemetry`:
 *
 * - a span per run, from its creation to its end (status, failure code), whose W3C context is
 *   stored with the run (`run.trace`), so a takeover or a resume in another process stays in
 *   the run's trace;
 * - a child `chat <model>` span per model request (GenAI attributes, token usage, attempts as
 *   events, first output as an event and `runlight.time_to_first_output_ms`) and a
 *   `runlight.compaction` span per compaction, with the records' original timestamps;
 * - events for approvals requested and answered, a pause and a takeover;
 * - metrics: time to first output, provider wait, compaction time, retries by reason, runs by
 *   terminal status and code, stalled runs, recovery latency.
 *
 * The AI SDK's own spans (`experimental_telemetry`) nest under the run's span; spans the
 * provider call makes nest under its request. No prompt, output, provider error text or tool
 * error text reaches a span.
 *
 * @example
 * import { createOtelTelemetry } from '@runlight/runtime/otel';
 * const runtime = createAgentRuntime({ store, telemetry: createOtelTelemetry() });
 */
export function createOtelTelemetry(options: OtelTelemetryOptions = {}): RunTelemetry {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meterProvider =
    options.meterProvider === false
      ? undefined
      : (options.meterProvider ?? metrics.getMeterProvider());
  const instruments = meterProvider ? new OtelMetrics(meterProvider.getMeter(SCOPE)) : undefined;
  const maxRuns = Math.max(1, options.maxRuns ?? 10_000);
  /** Runs with spans in this process, oldest first (a Map keeps insertion order). */
  const runs = new Map<string, RunSpans>();
  /** Run spans started for a run about to be created (`traceForNewRun`), until `created`. */
  const pending = new Map<string, RunSpans>();
  /** The last lease expiry seen of each run: a takeover's recovery latency counts from it. */
  const leases = new Map<string, string>();

  const keep = (spans: RunSpans) => {
    runs.delete(spans.runId);
    runs.set(spans.runId, spans);
    while (runs.size > maxRuns) {
      const [oldest] = runs.values();
      if (!oldest) break;
      runs.delete(oldest.runId);
      leases.delete(oldest.runId);
      oldest.release(new Date().toISOString());
    }
    return spans;
  };

  /** The run's spans here: held, or continued from the stored trace, or a new run span. */
  const spansOf = (run: AgentRun): RunSpans => {
    const held = runs.get(run.id);
    if (held) return held;
    if (run.trace) {
      const remote = trace.setSpanContext(ROOT_CONTEXT, { ...run.trace, isRemote: true });
      return keep(new RunSpans(run.id, null, remote, tracer, instruments));
    }
    // A run created without telemetry (or elsewhere without it): its span begins here.
    const span = tracer.startSpan(
      RUN_SPAN,
      runSpanOptions(run.id, run.createdAt),
      context.active(),
    );
    return keep(new RunSpans(run.id, span, ROOT_CONTEXT, tracer, instruments));
  };

  return {
    traceForNewRun(runId: string): RunTrace | undefined {
      const span = tracer.startSpan(RUN_SPAN, runSpanOptions(runId), context.active());
      pending.set(runId, new RunSpans(runId, span, context.active(), tracer, instruments));
      // A creation that failed (the store was down) leaves its span unended and unexported.
      for (const stale of pending.keys()) {
        if (pending.size <= maxRuns) break;
        pending.delete(stale);
      }
      const spanContext = span.spanContext();
      if (!isSpanContextValid(spanContext)) return undefined;
      return {
        traceId: spanContext.traceId,
        spanId: spanContext.spanId,
        traceFlags: spanContext.traceFlags,
      };
    },

    observe(event: DurableRunEvent, run: AgentRun, cause?: ObservedCause): void {
      const previousLease = leases.get(run.id);
      if (run.leaseExpiresAt) leases.set(run.id, run.leaseExpiresAt);
      else leases.delete(run.id);
      if (event.type === 'run-status' && event.change === 'created') {
        const started = pending.get(run.id);
        pending.delete(run.id);
        if (started && sameTrace(started, run)) keep(started);
        return;
      }
      if (event.type === 'run-status' && event.change === 'lease-renewed') return;
      pending.delete(run.id);
      const spans = spansOf(run);
      switch (event.type) {
        case 'run-operation':
          spans.operation(event.operation);
          return;
        case 'assistant-append':
          spans.approvalsIn(event.chunks, event.at);
          return;
        case 'assistant-checkpoint':
          spans.approvalsInMessage(event.checkpoint.message, event.at);
          return;
        case 'run-status':
          break;
      }
      switch (event.change) {
        case 'acquired':
          if (cause?.takeover) {
            spans.addEvent(
              'runlight.takeover',
              { 'runlight.takeovers': cause.takeover.takeovers },
              event.at,
            );
            instruments?.stalled();
            const latency = secondsBetween(
              cause.takeover.leaseExpiredAt ?? previousLease,
              event.at,
            );
            if (latency !== undefined) instruments?.recoveryLatency(latency);
          }
          return;
        case 'lease-released':
          spans.addEvent('runlight.run.paused', {}, event.at);
          return;
        case 'lease-handed-off':
          runs.delete(run.id);
          leases.delete(run.id);
          spans.release(event.at);
          return;
        case 'completed':
        case 'failed':
        case 'cancelled':
          runs.delete(run.id);
          leases.delete(run.id);
          spans.end(run, event.at);
          return;
      }
    },

    release(runId) {
      const spans = runs.get(runId);
      runs.delete(runId);
      leases.delete(runId);
      spans?.release(new Date().toISOString());
    },

    describeExecution(runId, model) {
      const spans = runs.get(runId);
      if (spans) spans.model = model;
    },

    recordUsage(runId, operationId, usage) {
      runs.get(runId)?.usage(operationId, usage);
    },

    withRun(runId, work) {
      const spans = runs.get(runId);
      return spans ? context.with(spans.context, work) : work();
    },

    withOperation(runId, operationId, work) {
      const spans = runs.get(runId);
      return spans ? context.with(spans.contextOf(operationId), work) : work();
    },
  };
}

function runSpanOptions(runId: string, createdAt?: string) {
  return {
    kind: SpanKind.INTERNAL,
    ...(createdAt ? { startTime: new Date(createdAt) } : {}),
    attributes: { 'runlight.run.id': runId, 'gen_ai.operation.name': 'invoke_agent' },
  };
}

/** True when the stored run carries the trace of this started span (or neither has one). */
function sameTrace(spans: RunSpans, run: AgentRun): boolean {
  const spanContext = spans.span?.spanContext();
  if (!run.trace) return !spanContext || !isSpanContextValid(spanContext);
  return spanContext?.spanId === run.trace.spanId;
}
