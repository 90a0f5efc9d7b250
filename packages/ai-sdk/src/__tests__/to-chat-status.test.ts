import type { ActivityKind } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { toChatStatus } from '../to-chat-status';

const operation = (step: number) =>
  ({
    id: `call-1:step-${step}`,
    kind: 'model-request',
    phase: 'started',
    step,
    startedAt: '2026-12-04T00:00:00.000Z',
  }) as unknown as RunOperation;

describe('toChatStatus', () => {
  it('maps every activity onto useChat’s four statuses', () => {
    const expected: Record<ActivityKind, string> = {
      loading: 'submitted',
      'not-created': 'submitted',
      queued: 'submitted',
      compacting: 'submitted',
      'waiting-for-model': 'submitted',
      streaming: 'streaming',
      working: 'streaming',
      stalled: 'streaming',
      'handing-off': 'streaming',
      'awaiting-approval': 'ready',
      completed: 'ready',
      cancelled: 'ready',
      failed: 'error',
    };
    for (const [kind, status] of Object.entries(expected)) {
      expect([kind, toChatStatus({ kind: kind as ActivityKind })]).toEqual([kind, status]);
    }
    expect(toChatStatus(null)).toBe('ready');
  });

  it('a later step waiting for its model is still streaming the same answer', () => {
    expect(toChatStatus({ kind: 'waiting-for-model', operation: operation(0) })).toBe('submitted');
    expect(toChatStatus({ kind: 'waiting-for-model', operation: operation(1) })).toBe('streaming');
    expect(toChatStatus({ kind: 'compacting', operation: operation(2) })).toBe('streaming');
  });
});
