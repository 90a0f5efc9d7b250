import type { RunState } from '@runlight/client';
import { useRun } from '../hooks/use-run';

/**
 * A link to the run's trace in the app's tracing UI, when the run has one (created with the
 * runtime's telemetry on: `run.trace`). `template` names the URL with `{traceId}`, `{spanId}`
 * (the run's span) and `{runId}` placeholders, each URL-encoded where it is put.
 *
 * @example
 * traceUrl("https://jaeger.example.com/trace/{traceId}", run) // → …/trace/4bf92f35…
 */
export function traceUrl(
  template: string,
  runId: string,
  trace: { traceId: string; spanId: string },
): string {
  const values: Record<string, string> = { traceId: trace.traceId, spanId: trace.spanId, runId };
  return template.replace(/\{(traceId|spanId|runId)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? ''),
  );
}

const selectTrace = (state: RunState) => state.run?.trace ?? null;

/** The timeline's trace link: nothing until the run is loaded, nothing for a run without a trace. */
export function TraceLink({
  runId,
  template,
  label,
}: {
  runId: string;
  template: string;
  label: string;
}) {
  const trace = useRun(runId, { select: selectTrace });
  if (!trace) return null;
  return (
    <a data-runlight="trace-link" href={traceUrl(template, runId, trace)}>
      {label}
    </a>
  );
}
