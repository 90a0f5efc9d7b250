import { at, compactionOperation, operationEvent, TIMELINE_HISTORY } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { buildRunTimeline } from '../timeline/build-run-timeline';

describe('buildRunTimeline', () => {
  it('one span per operation with durations from the server timestamps, gaps between, retries marked', () => {
    const model = buildRunTimeline(TIMELINE_HISTORY);
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
    expect(model.inFlight?.id).toBe(TIMELINE_HISTORY.at(-1)!.operation.id);
    expect(model.endMs).toBe(6000);
  });

  it('keeps the span objects of unchanged operations (memoised rows skip rendering)', () => {
    const first = buildRunTimeline(TIMELINE_HISTORY.slice(0, 5));
    const second = buildRunTimeline(TIMELINE_HISTORY);
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
