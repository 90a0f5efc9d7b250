import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentRuntimeStore,
  createAgentRuntimeStore,
  InvalidTransitionError,
  RunNotFoundError,
  StoreConflictError,
} from '../index';
import { describeClockConformance } from './clock-conformance';
import type { ConformanceContext, ConformanceTarget } from './conformance-context';
import { describeControlRequestConformance } from './control-request-conformance';
import { assistantMessage, manualClock, modelRequest } from './kit-fixtures';
import { describeLeaseConformance } from './lease-conformance';
import {
  describeEnvelopeConformance,
  describeRecordIntegrityConformance,
} from './record-integrity-conformance';
import { describeRunInputConformance } from './run-input-conformance';

/**
 * The behaviour every `AgentRuntimeDriver` must show through `createAgentRuntimeStore`: the
 * memory driver, PGlite and a PostgreSQL server all run this same suite.
 */
export function describeDriverConformance(
  name: string,
  makeTarget: () => Promise<ConformanceTarget>,
): void {
  describe(`driver conformance: ${name}`, () => {
    let target: ConformanceTarget;
    let store: AgentRuntimeStore;
    let clock: ReturnType<typeof manualClock>;
    let runSeq = 0;
    const runId = () => `conformance-${Date.now().toString(36)}-${runSeq++}`;

    beforeEach(async () => {
      target = await makeTarget();
      clock = manualClock();
      store = createAgentRuntimeStore(target.driver, { now: clock.now });
    });
    afterEach(async () => {
      await target.close?.();
    });

    async function acquired(id = runId(), owner = 'owner-a') {
      await store.createRun({ runId: id });
      const run = await store.acquireRun(id, { owner, leaseMs: 1_000 });
      return {
        id,
        run,
        guard: { owner, fencingToken: run.fencingToken, expectedRevision: run.revision },
      };
    }

    it('creates a run at revision 1 with one run-status event', async () => {
      const id = runId();
      const run = await store.createRun({ runId: id });
      expect(run).toMatchObject({
        id,
        status: 'queued',
        revision: 1,
        fencingToken: 0,
        owner: null,
      });
      const events = await store.readEvents(id);
      expect(events).toEqual([
        expect.objectContaining({ type: 'run-status', change: 'created', revision: 1 }),
      ]);
    });

    it('keeps the trace a run was created with, through later writes and a fresh store', async () => {
      const { id } = await acquired();
      expect((await store.getRun(id)).trace).toBeUndefined();
      const traced = runId();
      const trace = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
      await store.createRun({ runId: traced, trace });
      const run = await store.acquireRun(traced, { owner: 'owner-a', leaseMs: 1_000 });
      await store.renewLease(traced, {
        owner: 'owner-a',
        fencingToken: run.fencingToken,
        expectedRevision: run.revision,
      });
      const fresh = createAgentRuntimeStore(target.driver, { now: clock.now });
      expect((await fresh.getSnapshot(traced)).run.trace).toEqual(trace);
      expect((await fresh.readEvents(traced))[0]).toMatchObject({ change: 'created', trace });
    });

    it('rejects a second create of the same id and keeps the first', async () => {
      const id = runId();
      await store.createRun({ runId: id });
      await expect(store.createRun({ runId: id })).rejects.toSatisfy(
        InvalidTransitionError.isInstance,
      );
      expect((await store.readEvents(id)).length).toBe(1);
    });

    it('bumps revision by one and appends one event per successful mutation, replayable in order', async () => {
      const { id, guard } = await acquired();
      let run = await store.recordRunOperation(id, guard, modelRequest(0));
      run = await store.saveAssistantCheckpoint(
        id,
        { ...guard, expectedRevision: run.revision },
        assistantMessage('hi'),
      );
      run = await store.recordRunOperation(
        id,
        { ...guard, expectedRevision: run.revision },
        modelRequest(0, 'completed'),
      );
      run = await store.commitTerminal(
        id,
        { ...guard, expectedRevision: run.revision },
        { status: 'completed' },
      );
      expect(run.revision).toBe(6);
      const events = await store.readEvents(id);
      expect(events.map((event) => event.revision)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(events.map((event) => event.type)).toEqual([
        'run-status',
        'run-status',
        'run-operation',
        'assistant-checkpoint',
        'run-operation',
        'run-status',
      ]);
      expect((await store.readEvents(id, { afterRevision: 4 })).map((e) => e.revision)).toEqual([
        5, 6,
      ]);
      expect(await store.readEvents(id, { afterRevision: 6 })).toEqual([]);
      const snapshot = await store.getSnapshot(id);
      expect(snapshot.revision).toBe(6);
      expect(snapshot.assistant?.revision).toBe(4);
      expect(snapshot.assistant?.message).toEqual(assistantMessage('hi'));
    });

    it('materialises the snapshot from the last consolidation and the appends after it', async () => {
      const { id, guard } = await acquired();
      const at = (revision: number) => ({ ...guard, expectedRevision: revision });
      const messageId = 'message-1';
      let run = await store.appendAssistant(id, guard, {
        messageId,
        baseRevision: 0,
        chunks: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hel' },
        ],
      });
      expect((await store.getSnapshot(id)).assistant).toEqual({
        message: {
          id: messageId,
          role: 'assistant',
          parts: [{ type: 'text', text: 'Hel', state: 'streaming' }],
        },
        revision: 3,
      });
      run = await store.recordRunOperation(id, at(run.revision), modelRequest(0));
      run = await store.appendAssistant(id, at(run.revision), {
        messageId,
        baseRevision: 3,
        chunks: [{ type: 'text-delta', id: 't', delta: 'lo' }],
      });
      // A consolidation cut mid-part; the appends after it continue that part.
      const consolidated = (await store.getSnapshot(id)).assistant!.message;
      run = await store.saveAssistantCheckpoint(id, at(run.revision), consolidated);
      run = await store.appendAssistant(id, at(run.revision), {
        messageId,
        baseRevision: 6,
        chunks: [
          { type: 'text-delta', id: 't', delta: ' world' },
          { type: 'text-end', id: 't' },
        ],
      });
      const snapshot = await store.getSnapshot(id);
      expect(snapshot.revision).toBe(7);
      expect(snapshot.assistant).toEqual({
        message: {
          id: messageId,
          role: 'assistant',
          parts: [{ type: 'text', text: 'Hello world', state: 'done' }],
        },
        revision: 7,
      });
      const events = await store.readEvents(id, { afterRevision: 2 });
      expect(events.map((event) => [event.type, event.revision])).toEqual([
        ['assistant-append', 3],
        ['run-operation', 4],
        ['assistant-append', 5],
        ['assistant-checkpoint', 6],
        ['assistant-append', 7],
      ]);
      expect(events[2]).toMatchObject({ baseRevision: 3, messageId });
    });

    it('refuses an append that does not extend the last assistant write, or another message', async () => {
      const { id, guard } = await acquired();
      const run = await store.appendAssistant(id, guard, {
        messageId: 'm',
        baseRevision: 0,
        chunks: [{ type: 'text-start', id: 't' }],
      });
      const next = { ...guard, expectedRevision: run.revision };
      const before = await store.getSnapshot(id);
      await expect(
        store.appendAssistant(id, next, {
          messageId: 'm',
          baseRevision: 0,
          chunks: [{ type: 'text-delta', id: 't', delta: 'x' }],
        }),
      ).rejects.toSatisfy(
        (error: unknown) =>
          InvalidTransitionError.isInstance(error) && error.rule === 'append-base-changed',
      );
      await expect(
        store.appendAssistant(id, next, {
          messageId: 'other',
          baseRevision: run.revision,
          chunks: [{ type: 'text-delta', id: 't', delta: 'x' }],
        }),
      ).rejects.toSatisfy(InvalidTransitionError.isInstance);
      await expect(
        store.appendAssistant(id, next, { messageId: 'm', baseRevision: run.revision, chunks: [] }),
      ).rejects.toThrow(/at least one chunk/);
      expect(await store.getSnapshot(id)).toEqual(before);
    });

    it('fails a stale revision with StoreConflictError and stores nothing', async () => {
      const { id, guard } = await acquired();
      await store.recordRunOperation(id, guard, modelRequest(0));
      const before = await store.getSnapshot(id);
      await expect(
        store.saveAssistantCheckpoint(id, guard, assistantMessage('late')),
      ).rejects.toSatisfy(StoreConflictError.isInstance);
      expect(await store.getSnapshot(id)).toEqual(before);
      expect((await store.readEvents(id)).length).toBe(3);
    });

    it('recognises a repeated terminal commit as a duplicate and appends nothing', async () => {
      const { id, guard } = await acquired();
      const ended = await store.commitTerminal(id, guard, { status: 'cancelled' });
      const again = await store.commitTerminal(id, guard, { status: 'cancelled' });
      expect(again).toEqual(ended);
      expect((await store.readEvents(id)).length).toBe(ended.revision);
      await expect(
        store.commitTerminal(
          id,
          { ...guard, expectedRevision: ended.revision },
          { status: 'completed' },
        ),
      ).rejects.toSatisfy(InvalidTransitionError.isInstance);
    });

    it('returns copies: mutating a returned object changes nothing stored', async () => {
      const { id, guard } = await acquired();
      const run = await store.saveAssistantCheckpoint(id, guard, assistantMessage('original'));
      const snapshot = await store.getSnapshot(id);
      (snapshot.assistant!.message.parts[0] as { text: string }).text = 'mutated';
      run.status = 'failed';
      const events = await store.readEvents(id);
      events.length = 0;
      const fresh = await store.getSnapshot(id);
      expect((fresh.assistant!.message.parts[0] as { text: string }).text).toBe('original');
      expect(fresh.run.status).toBe('running');
      expect((await store.readEvents(id)).length).toBe(3);
    });

    it('answers RunNotFoundError for an unknown run', async () => {
      await expect(store.getRun('missing-run')).rejects.toSatisfy(RunNotFoundError.isInstance);
      await expect(store.getSnapshot('missing-run')).rejects.toSatisfy(RunNotFoundError.isInstance);
      await expect(store.readEvents('missing-run')).rejects.toSatisfy(RunNotFoundError.isInstance);
      await expect(store.acquireRun('missing-run', { owner: 'a', leaseMs: 1 })).rejects.toSatisfy(
        RunNotFoundError.isInstance,
      );
    });

    it('lets exactly one of two concurrent writers on one revision win', async () => {
      const { id, guard } = await acquired();
      const results = await Promise.allSettled([
        store.recordRunOperation(id, guard, modelRequest(0, 'started', 'model-request:step-0:a')),
        store.recordRunOperation(id, guard, modelRequest(0, 'started', 'model-request:step-0:b')),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected');
      expect(StoreConflictError.isInstance((rejected as PromiseRejectedResult).reason)).toBe(true);
      expect((await store.readEvents(id)).length).toBe(3);
    });

    const context: ConformanceContext = {
      get target() {
        return target;
      },
      get store() {
        return store;
      },
      get clock() {
        return clock;
      },
      runId,
      acquired,
    };
    describeLeaseConformance(context);
    describeClockConformance(context);
    describeRecordIntegrityConformance(context);
    describeEnvelopeConformance(context);
    describeControlRequestConformance(context);
    describeRunInputConformance(context);
  });
}
