import type { RunOperation, RunOperationEvent } from '@runlight/protocol';
import { at, compactionOperation, operationEvent } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { buildRunTimeline } from '../timeline/build-run-timeline';

const request = (
  step: number,
  attempt: number,
  phase: RunOperation['phase'],
  times: Partial<RunOperation> = {},
): RunOperation => ({
  id: `model-request:step-${step}:call:attempt-${attempt}`,
  kind: 'model-request',
  phase,
  step,
  attempt,
  startedAt: at(10 * step + attempt),
  ...times,
});

/** Step 0: compaction, a failed attempt retried, a second attempt that streams; then a gap. */
const HISTORY: RunOperationEvent[] = [
  operationEvent(2, compactionOperation('started', { step: 0, startedAt: at(0) })),
  operationEvent(
    3,
    compactionOperation('completed', { step: 0, startedAt: at(0), endedAt: at(1) }),
  ),
  operationEvent(4, request(0, 1, 'started')),
  operationEvent(5, {
    ...request(0, 1, 'failed'),
    endedAt: at(2),
    failureReason: 'rate_limited',
    willRetry: true,
  }),
  operationEvent(6, { ...request(0, 2, 'started'), requestStartedAt: at(1) }),
  operationEvent(7, {
    ...request(0, 2, 'first-output'),
    requestStartedAt: at(1),
    firstOutputAt: at(4),
  }),
  operationEvent(8, {
    ...request(0, 2, 'completed'),
    requestStartedAt: at(1),
    firstOutputAt: at(4),
    endedAt: at(6),
  }),
  operationEvent(9, request(1, 1, 'started')),
];

describe('buildRunTimeline', () => {
  it('one span per operation with durations from the server timestamps, gaps between, retries marked', () => {
    const model = buildRunTimeline(HISTORY);
    expect(model.origin).toBe(at(0));
    const spans = model.spans.map((span) => ({
      kind: span.kind,
      attempt: span.attempt,
      phase: span.phase,
      startMs: span.startMs,
      waitMs: span.waitMs,
      streamMs: span.streamMs,
      retried: span.retried,
    }));
    expect(spans).toEqual([
      {
        kind: 'compaction',
        attempt: null,
        phase: 'completed',
        startMs: 0,
        waitMs: 1000,
        streamMs: null,
        retried: false,
      },
      {
        kind: 'model-request',
        attempt: 1,
        phase: 'failed',
        startMs: 1000,
        waitMs: 1000,
        streamMs: null,
        retried: true,
      },
      {
        kind: 'model-request',
        attempt: 2,
        phase: 'completed',
        startMs: 2000,
        waitMs: 2000,
        streamMs: 2000,
        retried: false,
      },
      {
        kind: 'model-request',
        attempt: 1,
        phase: 'started',
        startMs: 11_000,
        waitMs: null,
        streamMs: null,
        retried: false,
      },
    ]);
    expect(
      model.rows
        .filter((row) => row.type === 'gap')
        .map((row) => row.type === 'gap' && row.gap.durationMs),
    ).toEqual([5000]);
    expect(model.inFlight?.id).toBe(HISTORY.at(-1)!.operation.id);
    expect(model.endMs).toBe(6000);
  });

  it('keeps the span objects of unchanged operations (memoised rows skip rendering)', () => {
    const first = buildRunTimeline(HISTORY.slice(0, 5));
    const second = buildRunTimeline(HISTORY);
    expect(second.spans[0]).toBe(first.spans[0]);
    expect(buildRunTimeline([])).toEqual({
      origin: null,
      rows: [],
      spans: [],
      endMs: 0,
      inFlight: null,
    });
  });

  it('never shows a negative duration when the clock moved backwards', () => {
    const model = buildRunTimeline([
      operationEvent(
        2,
        compactionOperation('completed', { step: 0, startedAt: at(5), endedAt: at(3) }),
      ),
    ]);
    expect(model.spans[0]?.totalMs).toBe(0);
  });
});
