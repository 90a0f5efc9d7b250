import type { RunOperation, RunOperationEvent, RunSnapshot } from '@runlight/protocol';

/** One operation of the plan: its records in order, times in ms from the run's start. */
interface PlannedOperation {
  readonly id: string;
  readonly kind: RunOperation['kind'];
  readonly step: number;
  readonly attempt?: number;
  readonly failed?: boolean;
  readonly outcome?: 'compacted' | 'not_needed';
  readonly startMs: number;
  /** Model requests that produce output: when the first output came. */
  readonly firstOutputMs?: number;
  readonly endMs: number;
  readonly requestStartMs?: number;
}

/**
 * The history of an agent run with exactly `operationCount` operations, shaped like a real one
 * (the shared input of the `RunTimeline` benches, jsdom and Chromium): a compaction every fourth
 * step, one model request per step, a failed attempt retried every seventh step, and tool time
 * between steps (a gap row). Model requests carry three records (started, first output,
 * completed), compactions and failed attempts two, as the runner records them; every record is
 * schema-valid (the client parses history pages). With `inFlight` the last operation is a
 * request that started a second ago and has no output yet: its bar grows with the clock.
 *
 * Plain data, no test framework, so the browser bench page bundles it too.
 *
 * @example
 * const { events, snapshot } = timelineHistory(500, { inFlight: true });
 */
export function timelineHistory(
  operationCount: number,
  options: { inFlight?: boolean; runId?: string; now?: number } = {},
): { events: RunOperationEvent[]; snapshot: RunSnapshot; runId: string } {
  const runId = options.runId ?? 'bench-run';
  const inFlight = options.inFlight ?? false;
  const plan: PlannedOperation[] = [];
  let cursor = 0;
  const add = (operation: PlannedOperation) => {
    if (plan.length < operationCount) plan.push(operation);
    cursor = operation.endMs;
  };
  for (let step = 0; plan.length < operationCount; step++) {
    if (step % 4 === 0) {
      const outcome = step % 8 === 0 ? 'compacted' : 'not_needed';
      add({
        id: `compaction:step-${step}`,
        kind: 'compaction',
        step,
        outcome,
        startMs: cursor,
        endMs: cursor + 40,
      });
    }
    const retried = step % 7 === 3;
    const requestStartMs = cursor;
    if (retried) {
      const id = `model-request:step-${step}:attempt-1`;
      add({
        id,
        kind: 'model-request',
        step,
        attempt: 1,
        failed: true,
        startMs: cursor,
        endMs: cursor + 300,
      });
    }
    const attempt = retried ? 2 : 1;
    add({
      id: `model-request:step-${step}:attempt-${attempt}`,
      kind: 'model-request',
      step,
      attempt,
      startMs: cursor,
      firstOutputMs: cursor + 600,
      endMs: cursor + 2100,
      ...(retried ? { requestStartMs } : {}),
    });
    cursor += 1500; // tools before the next step: a gap row
  }

  const now = options.now ?? Date.now();
  const last = plan.at(-1)!;
  // The request in flight started a second ago; a finished run ended a minute ago.
  const origin = inFlight ? now - last.startMs - 1000 : now - last.endMs - 60_000;
  const iso = (offset: number) => new Date(origin + offset).toISOString();

  const events: RunOperationEvent[] = [];
  const record = (operation: RunOperation) => {
    const at = operation.endedAt ?? operation.firstOutputAt ?? operation.startedAt;
    events.push({ type: 'run-operation', runId, revision: events.length + 2, at, operation });
  };
  plan.forEach((planned, index) => {
    const started: RunOperation = {
      id: planned.id,
      kind: planned.kind,
      phase: 'started',
      step: planned.step,
      startedAt: iso(planned.startMs),
      ...(planned.attempt === undefined ? {} : { attempt: planned.attempt }),
      ...(planned.requestStartMs === undefined
        ? {}
        : { requestStartedAt: iso(planned.requestStartMs) }),
    };
    record(started);
    if (inFlight && index === plan.length - 1) return;
    const endedAt = iso(planned.endMs);
    if (planned.kind === 'compaction') {
      record({ ...started, phase: 'completed', endedAt, outcome: planned.outcome! });
    } else if (planned.failed) {
      record({
        ...started,
        phase: 'failed',
        endedAt,
        failureReason: 'rate_limited',
        willRetry: true,
      });
    } else {
      const firstOutputAt = iso(planned.firstOutputMs!);
      record({ ...started, phase: 'first-output', firstOutputAt });
      record({ ...started, phase: 'completed', firstOutputAt, endedAt });
    }
  });

  const revision = events.length + 1;
  const snapshot: RunSnapshot = {
    run: {
      id: runId,
      status: inFlight ? 'running' : 'completed',
      owner: inFlight ? 'worker-a' : null,
      fencingToken: 1,
      revision,
      lastOperation: events.at(-1)?.operation ?? null,
      failure: null,
      leaseExpiresAt: null,
      createdAt: iso(0),
      updatedAt: new Date(now).toISOString(),
    },
    assistant: null,
    revision,
  };
  return { events, snapshot, runId };
}
