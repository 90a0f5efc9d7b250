import type { AgentRun, AssistantCheckpoint, RunOperation } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  checkpoint,
  compactionOperation,
  modelRequestOperation,
  snapshot,
  textDelta,
} from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState } from '../merge/run-state';
import { type ActivityKind, selectActivity } from '../select/select-activity';
import { selectElapsedMs } from '../select/select-elapsed-ms';

const cases: Array<{
  name: string;
  run: Partial<AgentRun>;
  assistant?: AssistantCheckpoint;
  kind: ActivityKind;
  since?: string;
}> = [
  { name: 'queued run', run: { status: 'queued', owner: null, fencingToken: 0 }, kind: 'queued' },
  {
    name: 'compaction started',
    run: { lastOperation: compactionOperation('started') },
    kind: 'compacting',
    since: at(1),
  },
  {
    name: 'model request started',
    run: { lastOperation: modelRequestOperation('started', { startedAt: at(-300) }) },
    kind: 'waiting-for-model',
    since: at(-300),
  },
  {
    name: 'first output',
    run: { lastOperation: modelRequestOperation('first-output', { firstOutputAt: at(7) }) },
    kind: 'streaming',
    since: at(7),
  },
  {
    name: 'approval requested after the request ended',
    run: { lastOperation: modelRequestOperation('completed', { endedAt: at(9) }) },
    assistant: checkpoint(4, approvalMessage),
    kind: 'awaiting-approval',
    since: at(9),
  },
  {
    name: 'no operation in flight',
    run: { lastOperation: compactionOperation('completed') },
    kind: 'working',
    since: at(2),
  },
  { name: 'acquired, nothing recorded yet', run: {}, kind: 'working' },
  {
    name: 'completed',
    run: { status: 'completed', lastOperation: modelRequestOperation('completed') },
    kind: 'completed',
  },
  {
    name: 'cancelled',
    run: { status: 'cancelled', lastOperation: modelRequestOperation('cancelled') },
    kind: 'cancelled',
  },
];

describe('selectActivity', () => {
  it('is loading before the first snapshot', () => {
    expect(selectActivity(initialRunState('run-1'))).toEqual({ kind: 'loading' });
  });

  for (const entry of cases) {
    it(`${entry.name} → ${entry.kind}`, () => {
      const state = mergeSnapshot(
        initialRunState('run-1'),
        snapshot(5, entry.run, entry.assistant ?? null),
      );
      const activity = selectActivity(state);
      expect(activity.kind).toBe(entry.kind);
      expect(activity.since).toBe(entry.since);
    });
  }

  it('failed carries the failure code and operation', () => {
    const failure = { code: 'provider_failure' as const, operationId: 'req-step-0' };
    const state = mergeSnapshot(
      initialRunState('run-1'),
      snapshot(5, { status: 'failed', failure, lastOperation: modelRequestOperation('failed') }),
    );
    expect(selectActivity(state)).toMatchObject({
      kind: 'failed',
      failure,
      operation: { id: 'req-step-0', phase: 'failed' },
    });
  });

  describe('while the AI SDK retries a model request', () => {
    const first = at(-30);
    const request = (
      phase: RunOperation['phase'],
      times: Parameters<typeof modelRequestOperation>[1],
      retry: Partial<RunOperation>,
    ): RunOperation => ({ ...modelRequestOperation(phase, times), ...retry });
    const running = (operation: RunOperation) =>
      selectActivity(
        mergeSnapshot(initialRunState('run-1'), snapshot(5, { lastOperation: operation })),
      );

    it('a failed attempt that will be retried is still waiting for the model, since its start', () => {
      const failed = request(
        'failed',
        { startedAt: first, endedAt: at(-29) },
        { attempt: 1, failureReason: 'rate_limited', willRetry: true },
      );
      expect(running(failed)).toMatchObject({
        kind: 'waiting-for-model',
        since: first,
        attempt: 2,
      });
    });

    it('a retry attempt counts from the first attempt, with its number', () => {
      const retry = request(
        'started',
        { startedAt: at(-10) },
        { attempt: 3, requestStartedAt: first },
      );
      expect(running(retry)).toMatchObject({ kind: 'waiting-for-model', since: first, attempt: 3 });
    });

    it('a failed attempt that will not be retried is no wait; a first attempt has no number', () => {
      const last = request('failed', { endedAt: at(-1) }, { attempt: 3, willRetry: false });
      expect(running(last).kind).toBe('working');
      expect(running(request('started', {}, { attempt: 1 })).attempt).toBeUndefined();
    });

    it('a retry attempt that streams is streaming; an ended run shows its end', () => {
      const streaming = request(
        'first-output',
        { firstOutputAt: at(1) },
        { attempt: 2, requestStartedAt: first },
      );
      expect(running(streaming)).toMatchObject({ kind: 'streaming', since: at(1) });
      const failed = request('failed', { endedAt: at(-1) }, { attempt: 1, willRetry: true });
      const state = mergeSnapshot(
        initialRunState('run-1'),
        snapshot(5, { status: 'cancelled', lastOperation: failed }),
      );
      expect(selectActivity(state).kind).toBe('cancelled');
    });
  });

  it('returns the same object across text deltas (no re-render per delta)', () => {
    let state = mergeSnapshot(
      initialRunState('run-1'),
      snapshot(5, { lastOperation: modelRequestOperation('first-output') }, checkpoint(4)),
    );
    const first = selectActivity(state);
    state = applyEvent(state, textDelta(4, 1, 'lo'));
    state = applyEvent(state, textDelta(4, 2, '!'));
    expect(selectActivity(state)).toBe(first);
  });

  it('adds elapsed time on the estimated server clock when asked', () => {
    const state = mergeSnapshot(
      initialRunState('run-1'),
      snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(0) }) }),
      // The client clock is 60 s behind the server.
      { clockOffsetMs: 60_000 },
    );
    const clientNow = Date.parse(at(0)) - 60_000 + 1_500;
    const timed = selectActivity(state, clientNow);
    expect(timed.elapsedMs).toBe(1_500);
    expect(selectActivity(state, clientNow)).toBe(timed);
    expect(selectActivity(state, clientNow + 1).elapsedMs).toBe(1_501);
  });
});

describe('selectElapsedMs', () => {
  it('corrects a skewed client clock with the offset and never goes negative', () => {
    const since = at(10);
    const serverNow = Date.parse(at(12));
    expect(selectElapsedMs(since, { clockOffsetMs: 5_000 }, serverNow - 5_000)).toBe(2_000);
    expect(selectElapsedMs(since, { clockOffsetMs: -5_000 }, serverNow + 5_000)).toBe(2_000);
    expect(selectElapsedMs(since, { clockOffsetMs: null }, Date.parse(at(0)))).toBe(0);
  });
});
