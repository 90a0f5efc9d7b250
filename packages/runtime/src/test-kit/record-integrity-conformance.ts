import type { DurableRunEvent } from '@runlight/protocol';
import { expect, it } from 'vitest';
import { createAgentRuntimeStore, StoreConflictError, StoreRecordError } from '../index';
import type { StoredRunEvent } from '../store/log/evolve-run';
import { isPackedEvent } from '../store/log/packed-event';
import type { ConformanceContext } from './conformance-context';
import { assistantMessage, modelRequest } from './kit-fixtures';

/** A store never writes over what it cannot read: corrupt records and head events. */
export function describeRecordIntegrityConformance(ctx: ConformanceContext): void {
  it('refuses a stored record that does not parse, without overwriting it', async () => {
    const id = ctx.runId();
    await ctx.store.createRun({ runId: id });
    await ctx.target.corrupt(id, { run: { id, status: 'exploded' } });
    await expect(ctx.store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(ctx.store.acquireRun(id, { owner: 'a', leaseMs: 1 })).rejects.toSatisfy(
      StoreRecordError.isInstance,
    );
    expect(await ctx.target.driver.load(id)).toEqual({ run: { id, status: 'exploded' } });
  });

  it('refuses to write on top of a head event that no longer parses, and appends nothing', async () => {
    const { id, guard } = await ctx.acquired();
    const run = await ctx.store.recordRunOperation(id, guard, modelRequest(0));
    // The store wrote the head itself (its write cache holds it); then the row is damaged.
    await ctx.target.corruptEvent(id, run.revision, {
      type: 'run-operation',
      revision: run.revision,
      garbage: true,
    });
    const next = { ...guard, expectedRevision: run.revision };
    await expect(
      ctx.store.saveAssistantCheckpoint(id, next, assistantMessage('on top')),
    ).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(ctx.store.commitTerminal(id, next, { status: 'completed' })).rejects.toSatisfy(
      StoreRecordError.isInstance,
    );
    // Nothing was appended on top of the damaged row.
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });

  it('refuses to write on top of a head event rewritten behind the store (a conflict)', async () => {
    const { id, guard } = await ctx.acquired();
    const run = await ctx.store.recordRunOperation(id, guard, modelRequest(0));
    const [head] = (await ctx.target.driver.readEvents(id, run.revision - 1)) as Record<
      string,
      unknown
    >[];
    // Still a valid event, but not the one this store wrote.
    await ctx.target.corruptEvent(id, run.revision, { ...head, at: ctx.clock.plus(5) });
    await expect(
      ctx.store.saveAssistantCheckpoint(
        id,
        { ...guard, expectedRevision: run.revision },
        assistantMessage('on top'),
      ),
    ).rejects.toSatisfy(StoreConflictError.isInstance);
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });

  it('validates the head event even when the snapshot is at the head', async () => {
    const id = ctx.runId();
    const snapshotEvery = createAgentRuntimeStore(ctx.target.driver, {
      now: ctx.clock.now,
      snapshotEveryEvents: 1,
    });
    await snapshotEvery.createRun({ runId: id });
    const run = await snapshotEvery.acquireRun(id, { owner: 'owner-a', leaseMs: 1_000 });
    await ctx.target.corruptEvent(id, run.revision, { type: 'nonsense', revision: run.revision });
    // A fresh store (no write cache): its load reads the snapshot and validates the head.
    await expect(ctx.store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(
      ctx.store.recordRunOperation(
        id,
        { owner: 'owner-a', fencingToken: run.fencingToken, expectedRevision: run.revision },
        modelRequest(0),
      ),
    ).rejects.toSatisfy(StoreRecordError.isInstance);
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });
}

/**
 * Both stored envelopes read back (issue 39): events written whole by earlier versions (the
 * previous envelope), the packed events written now, and a log mixing the two; a packed row that
 * does not unpack is refused with `StoreRecordError` like any corrupt row.
 */
export function describeEnvelopeConformance(ctx: ConformanceContext): void {
  /** A run as an earlier version stored it: whole events, written straight to the driver. */
  async function wholeLog(id: string) {
    const at = (ms: number) => ctx.clock.plus(ms);
    const lease = { owner: 'owner-a', fencingToken: 1, failure: null };
    const events: DurableRunEvent[] = [
      {
        type: 'run-status',
        runId: id,
        revision: 1,
        at: at(0),
        leaseExpiresAt: null,
        change: 'created',
        status: 'queued',
        owner: null,
        fencingToken: 0,
        failure: null,
      },
      {
        type: 'run-status',
        runId: id,
        revision: 2,
        at: at(1),
        leaseExpiresAt: at(60_001),
        change: 'acquired',
        status: 'running',
        ...lease,
      },
      {
        type: 'assistant-append',
        runId: id,
        revision: 3,
        at: at(2),
        leaseExpiresAt: at(60_002),
        messageId: 'msg-old',
        baseRevision: 0,
        chunks: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'written ' },
        ],
      },
      {
        type: 'assistant-append',
        runId: id,
        revision: 4,
        at: at(3),
        leaseExpiresAt: at(60_003),
        messageId: 'msg-old',
        baseRevision: 3,
        chunks: [{ type: 'text-delta', id: 't', delta: 'whole, ' }],
      },
    ];
    const whole = events.map(({ runId: _runId, ...event }) => event as StoredRunEvent);
    expect(await ctx.target.driver.compareAndSet(id, null, null, whole)).toBe(true);
    return events;
  }

  it('reads a log written in the previous (whole) envelope, and writes packed on top of it', async () => {
    const id = ctx.runId();
    const events = await wholeLog(id);
    expect(await ctx.store.readEvents(id)).toEqual(events);
    const guard = { owner: 'owner-a', fencingToken: 1, expectedRevision: 4 };
    const run = await ctx.store.appendAssistant(id, guard, {
      messageId: 'msg-old',
      baseRevision: 4,
      chunks: [
        { type: 'text-delta', id: 't', delta: 'then packed' },
        { type: 'text-end', id: 't' },
      ],
    });
    const stored = await ctx.target.driver.readEvents(id, 0);
    expect(stored.map(isPackedEvent)).toEqual([false, false, false, false, true]);
    // A fresh store (no write cache) folds and materialises the mixed log.
    const fresh = createAgentRuntimeStore(ctx.target.driver, { now: ctx.clock.now });
    const snapshot = await fresh.getSnapshot(id);
    expect(snapshot.revision).toBe(run.revision);
    expect(snapshot.assistant?.message.parts).toEqual([
      { type: 'text', text: 'written whole, then packed', state: 'done' },
    ]);
    const [appended] = await fresh.readEvents(id, { afterRevision: 4 });
    expect(appended).toMatchObject({ type: 'assistant-append', runId: id, baseRevision: 4 });
  });

  it('refuses a packed event that does not unpack, without writing on top of it', async () => {
    const { id, guard } = await ctx.acquired();
    const run = await ctx.store.appendAssistant(id, guard, {
      messageId: 'm',
      baseRevision: 0,
      chunks: [{ type: 'text-delta', id: 't', delta: 'Hi' }],
    });
    for (const bad of [
      { p: 'a', r: run.revision, t: 'yesterday', m: 'm', c: [['t', 't', 'Hi']] },
      { p: 'a', r: run.revision, t: 0, m: 'm', c: [['?', 't', 'Hi']] },
      { p: 'z', r: run.revision, t: 0 },
    ]) {
      await ctx.target.corruptEvent(id, run.revision, bad);
      const fresh = createAgentRuntimeStore(ctx.target.driver, { now: ctx.clock.now });
      await expect(fresh.getSnapshot(id)).rejects.toSatisfy(StoreRecordError.isInstance);
      await expect(
        ctx.store.appendAssistant(
          id,
          { ...guard, expectedRevision: run.revision },
          { messageId: 'm', baseRevision: run.revision, chunks: [{ type: 'text-start', id: 'u' }] },
        ),
      ).rejects.toSatisfy(StoreRecordError.isInstance);
    }
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });
}
