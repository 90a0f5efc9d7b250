import type { DurableRunEvent, UIMessageChunk } from '@runlight/protocol';
import { safeParseDurableRunEvent } from '@runlight/protocol';
import { assistantMessage, compaction, modelRequest } from '@runlight/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isPackedEvent,
  packEvent,
  storedEventHead,
  unpackStoredEvent,
  wholeStoredEvent,
} from '../log/packed-event';

const AT = '2026-12-02T12:00:10.000Z';
const LEASE = '2026-12-02T12:00:40.000Z';
const head = { runId: 'run-1', at: AT, leaseExpiresAt: LEASE };

const events: DurableRunEvent[] = [
  {
    type: 'run-status',
    ...head,
    revision: 1,
    leaseExpiresAt: null,
    change: 'created',
    status: 'queued',
    owner: null,
    fencingToken: 0,
    failure: null,
    trace: {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    },
  },
  {
    type: 'run-status',
    ...head,
    revision: 9,
    change: 'failed',
    status: 'failed',
    owner: 'worker-a',
    fencingToken: 2,
    failure: { code: 'provider_failure', operationId: 'model-request:step-0' },
  },
  { type: 'run-operation', ...head, revision: 3, operation: modelRequest(0, 'first-output') },
  { type: 'run-operation', ...head, revision: 4, operation: compaction(1, 'completed') },
  {
    type: 'run-operation',
    ...head,
    revision: 5,
    operation: {
      ...modelRequest(2, 'failed', 'model-request:step-2:call-x:attempt-2'),
      attempt: 3, // not the one its id names
      requestStartedAt: '2026-12-02T11:59:00.000Z',
      failureReason: 'rate_limited',
      willRetry: true,
      retryAt: '2026-12-02T12:00:12.500Z',
      maxAttempts: 4,
    },
  },
  {
    type: 'run-operation',
    ...head,
    revision: 6,
    // An id naming a step it does not carry (a compaction without `step`).
    operation: { id: 'compaction:step-7', kind: 'compaction', phase: 'started', startedAt: AT },
  },
  {
    type: 'assistant-append',
    ...head,
    revision: 7,
    messageId: 'msg-1',
    baseRevision: 6,
    chunks: [
      { type: 'start-step' },
      { type: 'reasoning-delta', id: 'r', delta: 'hmm ' },
      { type: 'text-delta', id: 't', delta: 'Hello "world"\n\u0000' },
      { type: 'text-delta', id: 't', delta: 'kept', providerMetadata: { a: { b: 1 } } },
      { type: 'tool-input-delta', toolCallId: 'call-1', inputTextDelta: '{"q":' },
      { type: 'finish-step' },
    ],
  },
  {
    type: 'assistant-append',
    ...head,
    revision: 12,
    messageId: 'msg-1',
    baseRevision: 7,
    chunks: [{ type: 'text-end', id: 't' }],
  },
  {
    type: 'assistant-checkpoint',
    ...head,
    revision: 13,
    checkpoint: { message: assistantMessage('all of it'), revision: 13 },
  },
];

describe('the packed stored event (issue 39)', () => {
  it('packs every kind of event and reads each back exactly', () => {
    for (const event of events) {
      const valid = safeParseDurableRunEvent(event);
      expect(valid.success ? [] : valid.error.issues).toEqual([]);
      const stored = packEvent(event);
      expect(isPackedEvent(stored)).toBe(true);
      expect(unpackStoredEvent('run-1', JSON.parse(JSON.stringify(stored)))).toEqual(event);
      const { runId: _runId, ...whole } = event;
      expect(wholeStoredEvent(stored)).toEqual(whole);
      expect(storedEventHead(stored)).toEqual({
        revision: event.revision,
        at: event.at,
        leaseExpiresAt: event.leaseExpiresAt,
        status: event.type === 'run-status' ? event.status : null,
      });
    }
  });

  it('stores an append of 32 short tokens in about its text', () => {
    const text = Array.from({ length: 32 }, (_, i) => `w${i % 89} `).join('');
    const event: DurableRunEvent = {
      type: 'assistant-append',
      ...head,
      revision: 40,
      messageId: 'B4JGnZ9cGsBjZ9if',
      baseRevision: 39,
      chunks: [{ type: 'text-delta', id: 'text-0', delta: text }],
    };
    const { runId: _runId, ...whole } = event;
    const packed = JSON.stringify(packEvent(event)).length;
    expect(packed - text.length).toBeLessThan(100);
    expect(JSON.stringify(whole).length - text.length).toBeGreaterThan(200);
  });

  it('stores an event whole when packing would not give it back (a timestamp with an offset)', () => {
    const event: DurableRunEvent = {
      ...(events[2] as Extract<DurableRunEvent, { type: 'run-operation' }>),
      at: '2026-12-02T13:00:10.000+01:00',
    };
    const stored = packEvent(event);
    expect(isPackedEvent(stored)).toBe(false);
    expect(stored).not.toHaveProperty('runId');
    expect(unpackStoredEvent('run-1', stored)).toEqual(event);
  });

  it('reads whole events of earlier versions, with or without their runId', () => {
    const { runId: _runId, ...whole } = events[1]!;
    expect(unpackStoredEvent('run-1', whole)).toEqual(events[1]);
    expect(unpackStoredEvent('run-1', events[1])).toEqual(events[1]);
  });

  it('unpacks damaged packed rows into events that fail validation', () => {
    for (const bad of [
      { p: 'q', r: 1, t: 0 },
      { p: 'a', r: 2, t: '2026' },
      { p: 'a', r: 2, t: 0, m: 'm', c: [['x', 't', 'Hi']] },
      { p: 'a', r: 2, t: 0, m: 'm', c: [['t', 't']] },
      { p: 's', r: 1, t: 0, c: 'created', s: 'queued' },
      { p: 'o', r: 3, t: 0, l: 'soon', o: {} },
    ]) {
      expect(safeParseDurableRunEvent(unpackStoredEvent('run-1', bad)).success).toBe(false);
    }
  });

  it('reads back any append exactly, packed or whole (property)', () => {
    const id = fc.constantFrom('t', 'text-0', 'r-1');
    const chunk: fc.Arbitrary<UIMessageChunk> = fc.oneof(
      fc.record({ type: fc.constant('text-delta' as const), id, delta: fc.string() }),
      fc.record({ type: fc.constant('reasoning-delta' as const), id, delta: fc.string() }),
      fc.record({
        type: fc.constant('tool-input-delta' as const),
        toolCallId: id,
        inputTextDelta: fc.string(),
      }),
      fc.record({ type: fc.constant('text-start' as const), id }),
      fc.constant({ type: 'finish-step' as const }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.date({
          min: new Date('1990-01-01T00:00:00.000Z'),
          max: new Date('2200-01-01T00:00:00.000Z'),
          noInvalidDate: true,
        }),
        fc.option(fc.integer({ min: -5_000, max: 600_000 }), { nil: null }),
        fc.array(chunk, { minLength: 1, maxLength: 8 }),
        (revision, back, date, lease, chunks) => {
          const at = date.toISOString();
          const event: DurableRunEvent = {
            type: 'assistant-append',
            runId: 'run-1',
            revision: revision + back,
            at,
            leaseExpiresAt: lease === null ? null : new Date(date.getTime() + lease).toISOString(),
            messageId: 'msg-1',
            baseRevision: revision - 1,
            chunks,
          };
          const stored = JSON.parse(JSON.stringify(packEvent(event)));
          expect(isPackedEvent(stored)).toBe(true);
          expect(unpackStoredEvent('run-1', stored)).toEqual(event);
        },
      ),
      { numRuns: 300 },
    );
  });
});
