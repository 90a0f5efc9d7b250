import type { RunOperation } from '@runlight/protocol';
import { at, operationEvent } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import type { Activity } from '../select/select-activity';
import { buildRunTimeline } from '../timeline/build-run-timeline';
import {
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  withRetryWait,
} from '../timeline/timeline-words';

const attempt = (
  number: number,
  phase: RunOperation['phase'],
  extra: Partial<RunOperation> = {},
): RunOperation => ({
  id: `model-request:step-0:attempt-${number}`,
  kind: 'model-request',
  phase,
  step: 0,
  attempt: number,
  startedAt: at(number),
  ...(phase === 'started' || phase === 'first-output' ? {} : { endedAt: at(number + 0.5) }),
  ...extra,
});

/** Attempt 1 failed (rate limited) and the AI SDK retries it; attempt 2 not begun. */
const failedFirst = attempt(1, 'failed', { failureReason: 'rate_limited', willRetry: true });
const waiting = buildRunTimeline([operationEvent(2, failedFirst)]);
const retryWait: Activity = {
  kind: 'waiting-for-model',
  attempt: 2,
  since: at(1),
  operation: failedFirst,
};

describe('timeline words', () => {
  it('heads a retry with its attempt and a first attempt without one', () => {
    const model = buildRunTimeline([
      operationEvent(2, failedFirst),
      operationEvent(3, attempt(2, 'completed')),
    ]);
    expect(model.spans.map((span) => describeSpanHeading(span))).toEqual([
      'Model request',
      'Model request, attempt 2 of the request',
    ]);
  });

  it('words a retried failure with its reason and the attempt that followed', () => {
    expect(describeSpanResult(waiting.spans[0]!)).toBe(
      'failed (rate limited) — retried as attempt 2 of the request',
    );
  });

  it.each([
    ['rate_limited', 'failed (rate limited) — retried as attempt 2 of the request'],
    ['server_error', 'failed (server error) — retried as attempt 2 of the request'],
    ['timeout', 'failed (timed out) — retried as attempt 2 of the request'],
    ['network', 'failed (network error) — retried as attempt 2 of the request'],
    // No raw code: "(other)" says nothing a reader can use.
    ['other', 'failed — retried as attempt 2 of the request'],
  ] as const)('words a failure reason %s, never as its raw code', (failureReason, words) => {
    const failed = attempt(1, 'failed', { failureReason, willRetry: true });
    const [span] = buildRunTimeline([operationEvent(2, failed)]).spans;
    expect(describeSpanResult(span!)).toBe(words);
    const ended = attempt(1, 'failed', { failureReason });
    const [last] = buildRunTimeline([operationEvent(2, ended)]).spans;
    expect(describeSpanResult(last!)).not.toMatch(/_|\(other\)/);
  });

  it('words the operation in flight as the status does (stalled, recovering)', () => {
    const inFlight = attempt(1, 'first-output', { firstOutputAt: at(1.2) });
    const [span] = buildRunTimeline([operationEvent(2, inFlight)]).spans;
    const stalled: Activity = { kind: 'stalled', since: at(3), operation: inFlight };
    expect(describeSpanResult(span!)).toBe('streaming');
    expect(describeSpanResult(span!, { activity: stalled })).toBe('The worker stopped responding');
    expect(describeSpanResult(span!, { activity: stalled, recovers: true })).toBe(
      'The worker stopped responding — recovering',
    );
  });

  it('words the failed operation the run names with the failure’s owner', () => {
    const failed = attempt(1, 'failed');
    const [span] = buildRunTimeline([operationEvent(2, failed)]).spans;
    const activity: Activity = {
      kind: 'failed',
      failure: { code: 'storage_conflict', operationId: failed.id },
    };
    expect(describeSpanResult(span!, { activity })).toBe('Failed: Storage conflict');
  });

  it('words a failed request nobody retried and the run does not name as a takeover', () => {
    const closed = attempt(1, 'failed');
    const [span] = buildRunTimeline([operationEvent(2, closed)]).spans;
    expect(describeSpanResult(span!, { activity: { kind: 'working' } })).toBe(
      'failed: Another worker took over',
    );
  });

  it('adds the retry wait the run is in as a last gap in flight, and words it in two tenses', () => {
    const shown = withRetryWait(waiting, retryWait);
    const last = shown.rows.at(-1);
    expect(last?.type).toBe('gap');
    const gap = last?.type === 'gap' ? last.gap : undefined;
    expect(gap).toMatchObject({ retryAttempt: 2, inFlight: true, startedAt: at(1.5) });
    expect(describeGap(gap!)).toEqual({
      heading: 'Retry wait',
      result: 'Waiting to retry the model (attempt 2 of the request)',
    });
    expect(describeGap({ ...gap!, inFlight: false }).result).toBe(
      'Waited to retry the model (attempt 2 of the request)',
    );
  });

  it('leaves the model as it is when the run is not in a retry wait', () => {
    expect(withRetryWait(waiting, { kind: 'working' })).toBe(waiting);
  });

  it('words any other gap as the runner’s own work', () => {
    const model = buildRunTimeline([
      operationEvent(2, attempt(1, 'completed')),
      operationEvent(3, { ...attempt(1, 'started'), id: 'next', step: 1, startedAt: at(4) }),
    ]);
    const gap = model.rows.find((row) => row.type === 'gap');
    expect(gap?.type === 'gap' && describeGap(gap.gap)).toEqual({
      heading: 'Between operations',
      result: 'tools, approvals or other work',
    });
  });
});
