import {
  type AgentRuntimeDriver,
  type AgentRuntimeStore,
  createAgentRuntimeStore,
  FencingError,
  InvalidTransitionError,
  RunNotFoundError,
  StoreConflictError,
  StoreRecordError,
} from '@runlight/runtime';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistantMessage, manualClock, modelRequest } from './fixtures';

export interface ConformanceTarget {
  driver: AgentRuntimeDriver;
  /** Writes a raw record for `runId` behind the store's back (to test corrupt records). */
  corrupt: (runId: string, record: unknown) => Promise<void>;
  /** Replaces the stored event at `revision` behind the store's back (a corrupt event row). */
  corruptEvent: (runId: string, revision: number, event: unknown) => Promise<void>;
  close?: () => Promise<void>;
}

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

    it('fences the old owner after a second owner acquires an expired lease', async () => {
      const { id, guard } = await acquired();
      await expect(store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
        (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
      );
      clock.advance(1_001);
      const taken = await store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 });
      expect(taken).toMatchObject({ owner: 'owner-b', fencingToken: guard.fencingToken + 1 });
      const before = await store.getSnapshot(id);
      const stale = { ...guard, expectedRevision: taken.revision };
      await expect(store.recordRunOperation(id, stale, modelRequest(0))).rejects.toSatisfy(
        FencingError.isInstance,
      );
      await expect(
        store.saveAssistantCheckpoint(id, stale, assistantMessage('x')),
      ).rejects.toSatisfy(FencingError.isInstance);
      await expect(store.commitTerminal(id, stale, { status: 'completed' })).rejects.toSatisfy(
        FencingError.isInstance,
      );
      expect(await store.getSnapshot(id)).toEqual(before);
      expect((await store.readEvents(id)).length).toBe(before.revision);
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

    it('finds the runs whose lease expired, oldest expiry first, bounded, and no others', async () => {
      await store.createRun({ runId: runId() }); // queued: nobody leases it
      const first = await acquired();
      clock.advance(10);
      const second = await acquired();
      clock.advance(10);
      const third = await acquired();
      const ended = await acquired();
      await store.commitTerminal(ended.id, ended.guard, { status: 'completed' });
      const paused = await acquired();
      await store.releaseLease(paused.id, paused.guard);
      expect(await store.findExpiredRuns()).toEqual([]);

      clock.advance(1_000); // first and second expired; third expires exactly now
      const late = await acquired(); // a live lease
      expect(await store.findExpiredRuns()).toEqual([
        { runId: first.id, leaseExpiresAt: first.run.leaseExpiresAt },
        { runId: second.id, leaseExpiresAt: second.run.leaseExpiresAt },
        { runId: third.id, leaseExpiresAt: third.run.leaseExpiresAt },
      ]);
      expect((await store.findExpiredRuns({ limit: 2 })).map((run) => run.runId)).toEqual([
        first.id,
        second.id,
      ]);
      // A renewed lease is no longer expired; the query follows every write of the lease.
      await store.renewLease(third.id, third.guard);
      expect((await store.findExpiredRuns()).map((run) => run.runId)).toEqual([
        first.id,
        second.id,
      ]);
      clock.advance(5_000);
      expect((await store.findExpiredRuns()).map((run) => run.runId)).toEqual([
        first.id,
        second.id,
        third.id,
        late.id,
      ]);
    });

    it('lets exactly one of two concurrent takeovers of an expired lease win, and counts it', async () => {
      const { id } = await acquired();
      await expect(store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
        (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
      );
      clock.advance(1_000);
      const results = await Promise.allSettled([
        store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 }),
        store.takeOverRun(id, { owner: 'owner-c', leaseMs: 1_000 }),
      ]);
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toSatisfy(
        (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
      );
      const taken = (
        won[0] as PromiseFulfilledResult<{ run: { owner: string | null }; takeovers: number }>
      ).value;
      expect(taken.takeovers).toBe(1);
      expect(await store.findExpiredRuns()).toEqual([]);
      clock.advance(1_000);
      const again = await store.takeOverRun(id, { owner: 'owner-d', leaseMs: 1_000 });
      expect(again).toMatchObject({ takeovers: 2, run: { owner: 'owner-d' } });
    });

    it('releases a lease: nobody can take the run over, anyone may acquire it', async () => {
      const { id, guard } = await acquired();
      const released = await store.releaseLease(id, guard);
      expect(released).toMatchObject({ leaseExpiresAt: null, owner: 'owner-a', status: 'running' });
      expect((await store.readEvents(id)).at(-1)).toMatchObject({
        type: 'run-status',
        change: 'lease-released',
        leaseExpiresAt: null,
      });
      await expect(store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
        (error: unknown) =>
          InvalidTransitionError.isInstance(error) && error.rule === 'run-not-leased',
      );
      const resumed = await store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 });
      expect(resumed).toMatchObject({ owner: 'owner-b', leaseExpiresAt: clock.plus(1_000) });
    });

    it('refuses a stored record that does not parse, without overwriting it', async () => {
      const id = runId();
      await store.createRun({ runId: id });
      await target.corrupt(id, { run: { id, status: 'exploded' } });
      await expect(store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
      await expect(store.acquireRun(id, { owner: 'a', leaseMs: 1 })).rejects.toSatisfy(
        StoreRecordError.isInstance,
      );
      expect(await target.driver.load(id)).toEqual({ run: { id, status: 'exploded' } });
    });

    it('refuses to write on top of a head event that no longer parses, and appends nothing', async () => {
      const { id, guard } = await acquired();
      const run = await store.recordRunOperation(id, guard, modelRequest(0));
      // The store wrote the head itself (its write cache holds it); then the row is damaged.
      await target.corruptEvent(id, run.revision, {
        type: 'run-operation',
        revision: run.revision,
        garbage: true,
      });
      const next = { ...guard, expectedRevision: run.revision };
      await expect(
        store.saveAssistantCheckpoint(id, next, assistantMessage('on top')),
      ).rejects.toSatisfy(StoreRecordError.isInstance);
      await expect(store.commitTerminal(id, next, { status: 'completed' })).rejects.toSatisfy(
        StoreRecordError.isInstance,
      );
      // Nothing was appended on top of the damaged row.
      expect((await target.driver.readEvents(id, 0)).length).toBe(run.revision);
    });

    it('refuses to write on top of a head event rewritten behind the store (a conflict)', async () => {
      const { id, guard } = await acquired();
      const run = await store.recordRunOperation(id, guard, modelRequest(0));
      const [head] = (await target.driver.readEvents(id, run.revision - 1)) as Record<
        string,
        unknown
      >[];
      // Still a valid event, but not the one this store wrote.
      await target.corruptEvent(id, run.revision, { ...head, at: clock.plus(5) });
      await expect(
        store.saveAssistantCheckpoint(
          id,
          { ...guard, expectedRevision: run.revision },
          assistantMessage('on top'),
        ),
      ).rejects.toSatisfy(StoreConflictError.isInstance);
      expect((await target.driver.readEvents(id, 0)).length).toBe(run.revision);
    });

    it('validates the head event even when the snapshot is at the head', async () => {
      const id = runId();
      const snapshotEvery = createAgentRuntimeStore(target.driver, {
        now: clock.now,
        snapshotEveryEvents: 1,
      });
      await snapshotEvery.createRun({ runId: id });
      const run = await snapshotEvery.acquireRun(id, { owner: 'owner-a', leaseMs: 1_000 });
      await target.corruptEvent(id, run.revision, { type: 'nonsense', revision: run.revision });
      // A fresh store (no write cache): its load reads the snapshot and validates the head.
      await expect(store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
      await expect(
        store.recordRunOperation(
          id,
          { owner: 'owner-a', fencingToken: run.fencingToken, expectedRevision: run.revision },
          modelRequest(0),
        ),
      ).rejects.toSatisfy(StoreRecordError.isInstance);
      expect((await target.driver.readEvents(id, 0)).length).toBe(run.revision);
    });
  });
}
