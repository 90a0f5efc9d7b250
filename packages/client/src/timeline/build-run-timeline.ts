import type {
  CompactionOutcome,
  ModelFailureReason,
  OperationKind,
  OperationPhase,
  RunOperationEvent,
} from '@runlight/protocol';

/** One operation of the waterfall, with offsets in ms from the run's first operation. */
export interface TimelineSpan {
  /** The operation id (unique within the run). */
  readonly id: string;
  readonly kind: OperationKind;
  readonly step: number | null;
  /** Model requests: the 1-based attempt (from the record, else counted within the step). */
  readonly attempt: number | null;
  /**
   * A retry attempt (2 and later): `startedAt` of the request's first attempt, where the
   * status counts the wait for the model from; `null` on a first attempt and on compaction.
   */
  readonly requestStartedAt: string | null;
  readonly phase: OperationPhase;
  readonly startedAt: string;
  readonly firstOutputAt: string | null;
  readonly endedAt: string | null;
  readonly outcome: CompactionOutcome | null;
  readonly failureReason: ModelFailureReason | null;
  /** A failed attempt the SDK tried again (`willRetry`, or a later attempt of the step exists). */
  readonly retried: boolean;
  /** ms from the origin to `startedAt`. */
  readonly startMs: number;
  /** Provider wait (started → first output, or → end without output); `null` while waiting. */
  readonly waitMs: number | null;
  /** Streaming (first output → end); `null` without first output or while streaming. */
  readonly streamMs: number | null;
  /** Started → end; `null` while in flight. */
  readonly totalMs: number | null;
  readonly inFlight: boolean;
}

/**
 * Time between two operations: tools, approvals or other work of the runner — or, after a
 * failed attempt the AI SDK retries, the wait for the next attempt (`retryAttempt`).
 */
export interface TimelineGap {
  readonly id: string;
  /** The server timestamp it began at (the `endedAt` of the span before it). */
  readonly startedAt: string;
  readonly startMs: number;
  /** Its length; 0 while `inFlight` (then it grows with the clock from `startedAt`). */
  readonly durationMs: number;
  /** The span before it. */
  readonly after: string;
  /** A retry wait: the one-based attempt of the request it waits for; else `null`. */
  readonly retryAttempt: number | null;
  /** The wait is still going on (only a retry wait the run's activity reports; see `withRetryWait`). */
  readonly inFlight: boolean;
}

export type TimelineRow =
  | { readonly type: 'operation'; readonly span: TimelineSpan }
  | { readonly type: 'gap'; readonly gap: TimelineGap };

/** The waterfall of a run, pure data: `@runlight/react`'s `RunTimeline` draws it, or you do. */
export interface RunTimelineModel {
  /** The earliest `startedAt` (the waterfall's zero), `null` without operations. */
  readonly origin: string | null;
  /** Rows in start order: operations, and the gaps between them. */
  readonly rows: readonly TimelineRow[];
  readonly spans: readonly TimelineSpan[];
  /** The end of the last finished operation, in ms from the origin. */
  readonly endMs: number;
  /** The operation in flight (its bars grow with the clock), or `null`. */
  readonly inFlight: TimelineSpan | null;
}

/** Gaps shorter than this are the runner's own bookkeeping between two records, not work. */
const MIN_GAP_MS = 50;

const ms = (text: string): number => {
  const value = Date.parse(text);
  return Number.isFinite(value) ? value : 0;
};

const spanCache = new WeakMap<
  RunOperationEvent,
  { origin: number; retried: boolean; span: TimelineSpan }
>();

function toSpan(
  event: RunOperationEvent,
  origin: number,
  attempt: number | null,
  retried: boolean,
): TimelineSpan {
  // Same record, same origin: the same span object, so memoised rows skip their render.
  const cached = spanCache.get(event);
  if (cached !== undefined && cached.origin === origin && cached.retried === retried) {
    return cached.span;
  }
  const operation = event.operation;
  const start = ms(operation.startedAt);
  const first = operation.firstOutputAt === undefined ? null : ms(operation.firstOutputAt);
  const end = operation.endedAt === undefined ? null : ms(operation.endedAt);
  // Clocks may move backwards (ADR 0174): a duration is never negative.
  const since = (from: number, to: number) => Math.max(0, to - from);
  const span: TimelineSpan = {
    id: operation.id,
    kind: operation.kind,
    step: operation.step ?? null,
    attempt: operation.kind === 'model-request' ? (operation.attempt ?? attempt) : null,
    requestStartedAt: operation.requestStartedAt ?? null,
    phase: operation.phase,
    startedAt: operation.startedAt,
    firstOutputAt: operation.firstOutputAt ?? null,
    endedAt: operation.endedAt ?? null,
    outcome: operation.outcome ?? null,
    failureReason: operation.failureReason ?? null,
    retried,
    startMs: since(origin, start),
    waitMs: first !== null ? since(start, first) : end !== null ? since(start, end) : null,
    streamMs: first !== null && end !== null ? since(first, end) : null,
    totalMs: end === null ? null : since(start, end),
    inFlight: end === null,
  };
  spanCache.set(event, { origin, retried, span });
  return span;
}

/**
 * The waterfall of a run's operation history: one span per operation (its latest phase, its
 * original server timestamps), the gaps between consecutive operations, and which one is in
 * flight. Durations come only from the records' timestamps, never from receipt time.
 *
 * @example
 * const history = runHistoryOf(client, runId); // `useRunHistory(runId)` in React
 * const model = buildRunTimeline(history.getState().operations);
 * model.spans[0]?.waitMs; // provider wait of the first request
 */
export function buildRunTimeline(operations: readonly RunOperationEvent[]): RunTimelineModel {
  // The latest event of each operation id, kept in the order operations started.
  const latest = new Map<string, RunOperationEvent>();
  for (const event of operations) latest.set(event.operation.id, event);
  const events = [...latest.values()].sort(
    (a, b) => ms(a.operation.startedAt) - ms(b.operation.startedAt) || a.revision - b.revision,
  );
  if (events.length === 0) return { origin: null, rows: [], spans: [], endMs: 0, inFlight: null };
  const originText = events[0]!.operation.startedAt;
  const origin = ms(originText);

  const attempts = new Map<number, number>();
  const laterAttempt = new Set<RunOperationEvent>();
  const lastOfStep = new Map<number, RunOperationEvent>();
  const counted = new Map<RunOperationEvent, number>();
  for (const event of events) {
    const { operation } = event;
    if (operation.kind !== 'model-request' || operation.step === undefined) continue;
    const count = (attempts.get(operation.step) ?? 0) + 1;
    attempts.set(operation.step, count);
    counted.set(event, count);
    const previous = lastOfStep.get(operation.step);
    if (previous !== undefined) laterAttempt.add(previous);
    lastOfStep.set(operation.step, event);
  }

  const spans: TimelineSpan[] = [];
  const rows: TimelineRow[] = [];
  let endMs = 0;
  let inFlight: TimelineSpan | null = null;
  let previous: TimelineSpan | null = null;
  for (const event of events) {
    const retried =
      event.operation.phase === 'failed' &&
      (event.operation.willRetry === true || laterAttempt.has(event));
    const span = toSpan(event, origin, counted.get(event) ?? null, retried);
    if (previous !== null && previous.totalMs !== null) {
      const gapStart = previous.startMs + previous.totalMs;
      if (span.startMs - gapStart >= MIN_GAP_MS) {
        const retryAttempt =
          previous.retried && previous.step === span.step && span.attempt !== null
            ? span.attempt
            : null;
        rows.push({
          type: 'gap',
          gap: {
            id: `gap:${previous.id}`,
            startedAt: previous.endedAt ?? previous.startedAt,
            startMs: gapStart,
            durationMs: span.startMs - gapStart,
            after: previous.id,
            retryAttempt,
            inFlight: false,
          },
        });
      }
    }
    rows.push({ type: 'operation', span });
    spans.push(span);
    if (span.totalMs !== null) endMs = Math.max(endMs, span.startMs + span.totalMs);
    else inFlight = span;
    previous = span;
  }
  return { origin: originText, rows, spans, endMs, inFlight };
}
