import {
  type AgentRun,
  type DurableRunEvent,
  safeParseDurableRunEvent,
  TimestampSchema,
} from '@runlight/protocol';
import { z } from 'zod';
import { RunNotFoundError } from '../errors/run-not-found-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import { StoreRecordError } from '../errors/store-record-error';
import type { AgentRuntimeStore } from './agent-runtime-store-api';
import { controlRequestsOf } from './control-requests';
import type { AgentRuntimeDriver } from './driver/driver';
import { EventSequenceError, evolveRun } from './log/evolve-run';
import { materialiseAssistant } from './log/materialise-assistant';
import { packEvent, unpackStoredEvent } from './log/packed-event';
import {
  type OwnerGuard,
  reduceAcquireRun,
  reduceAppendAssistant,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceHandOffLease,
  reduceRecordRunOperation,
  reduceReleaseLease,
  reduceRenewLease,
  reduceSaveAssistantCheckpoint,
  type TerminalResult,
} from './log/reducer';
import { type Mutation, type StoredRun, StoredRunSchema } from './log/stored-run';
import { withRunIdValidation } from './run-id-guard';
import { runInputsOf } from './run-inputs';
import { storeClock } from './store-clock';
import { issuesOf } from './zod-issues';

const ExpiredRunSchema = z.strictObject({
  runId: z.string().min(1),
  leaseExpiresAt: TimestampSchema,
});

export interface AgentRuntimeStoreOptions {
  /**
   * The clock for `createdAt`, `updatedAt` and leases. Injectable for tests; by default the
   * driver's own (`AgentRuntimeDriver.now`, a database server's), else the process's.
   */
  now?: () => Date;
  /**
   * A write passes the whole record as a snapshot once this many events were appended since
   * the last one (default `SNAPSHOT_EVERY_EVENTS`, 64): the most events a load folds.
   */
  snapshotEveryEvents?: number;
}

/** Unowned mutations (create, acquire) retry a lost compare-and-set this many times. */
const UNOWNED_ATTEMPTS = 5;
/** How many runs' last written records the store remembers (see `written` below). */
const WRITTEN_CACHE_SIZE = 1_024;
/**
 * A write passes the whole record as a snapshot once this many events were appended since the
 * last one, so a load folds at most this many events; in between it passes the event alone.
 * At the default checkpoint cadence (≈ 256 bytes of answer per append) a record of ≈ 700
 * bytes every 64 writes adds ≈ 4% to what a run writes.
 */
export const SNAPSHOT_EVERY_EVENTS = 64;

/**
 * A record and the revision of the snapshot it was folded from (0: none); `head`, for a record
 * this store wrote, the JSON text of the event it wrote last (the driver checks it is still
 * stored so before writing on top of it).
 */
interface Loaded {
  record: StoredRun;
  snapshotRevision: number;
  head?: string;
}

/**
 * Builds a full `AgentRuntimeStore` from a normalized driver: the driver loads and
 * compare-and-sets; the reference reducer supplies every rule.
 *
 * @example
 * const store = createAgentRuntimeStore(createMemoryDriver());
 * await store.createRun({ runId: 'run-1' });
 * const run = await store.acquireRun('run-1', { owner: 'worker-a', leaseMs: 30_000 });
 */
export function createAgentRuntimeStore(
  driver: AgentRuntimeDriver,
  options: AgentRuntimeStoreOptions = {},
): AgentRuntimeStore {
  const clock = storeClock(driver, options.now);
  const snapshotEvery = options.snapshotEveryEvents ?? SNAPSHOT_EVERY_EVENTS;
  if (!Number.isInteger(snapshotEvery) || snapshotEvery < 1) {
    throw new TypeError(`snapshotEveryEvents must be a positive integer, not ${snapshotEvery}`);
  }
  /**
   * The record this store last wrote per run. An owned mutation naming exactly that revision
   * reduces against it instead of loading: the driver's compare-and-set on the revision still
   * decides, so a write elsewhere makes it fail and the fresh record is loaded to diagnose.
   * This saves a driver round trip and a record validation per mutation of a busy run.
   */
  const written = new Map<string, Loaded>();
  const remember = (runId: string, loaded: Loaded) => {
    written.delete(runId);
    if (written.size >= WRITTEN_CACHE_SIZE) written.delete(written.keys().next().value as string);
    // A copy: callers hold the returned run and the message they passed in.
    written.set(runId, { ...loaded, record: structuredClone(loaded.record) });
  };

  async function loadSnapshot(runId: string): Promise<StoredRun | null> {
    const raw = await driver.load(runId);
    if (raw === null || raw === undefined) return null;
    const parsed = StoredRunSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    throw new StoreRecordError(runId, 'run record', issuesOf(parsed.error));
  }

  /** `events` (all after the snapshot, validated) folded onto `snapshot`; `null`: no run. */
  function fold(runId: string, snapshot: StoredRun | null, events: readonly DurableRunEvent[]) {
    const from = snapshot?.run.revision ?? 0;
    let record = snapshot;
    for (const event of events) {
      if (event.revision <= from) continue;
      try {
        record = evolveRun(record, event);
      } catch (error) {
        if (!(error instanceof EventSequenceError)) throw error;
        throw new StoreRecordError(runId, 'event', [
          { path: `revision ${error.revision}`, message: error.message },
        ]);
      }
    }
    return record === null ? null : { record, snapshotRevision: from };
  }

  /**
   * The run's record: its latest snapshot and the events written after it, folded. The log is
   * read from the snapshot's own last event on, so the head event is validated even when the
   * snapshot is at the head: a write never lands on a head that no longer parses.
   */
  async function load(runId: string): Promise<Loaded | null> {
    const snapshot = await loadSnapshot(runId);
    const after = Math.max(0, (snapshot?.run.revision ?? 0) - 1);
    return fold(runId, snapshot, parseEvents(runId, await driver.readEvents(runId, after)));
  }

  async function loadExisting(runId: string): Promise<Loaded> {
    const loaded = await load(runId);
    if (!loaded) throw new RunNotFoundError(runId);
    return loaded;
  }

  /**
   * Appends the mutation's event, with the whole record as a snapshot only when
   * `snapshotEveryEvents` were appended since the last one.
   */
  async function write(runId: string, base: Loaded | null, mutation: Mutation) {
    const expected = base ? base.record.run.revision : null;
    const since = base?.snapshotRevision ?? 0;
    const revision = mutation.record.run.revision;
    const snapshot = revision - since >= snapshotEvery ? mutation.record : null;
    const event = packEvent(mutation.event);
    // On top of its own cached write, the store names the head it wrote: a row changed behind
    // its back (corrupt, or rewritten) fails the write instead of being built on.
    const done = await driver.compareAndSet(runId, expected, snapshot, [event], base?.head);
    if (done) {
      const head = JSON.stringify(event);
      remember(runId, {
        record: mutation.record,
        snapshotRevision: snapshot ? revision : since,
        head,
      });
    } else written.delete(runId);
    return done;
  }

  /**
   * An owned mutation: reduce against the loaded record, then compare-and-set on its revision.
   * A lost compare-and-set is re-diagnosed against the fresh record, so the caller learns
   * whether it lost the run (`FencingError`) or only a revision (`StoreConflictError`).
   */
  async function owned(
    runId: string,
    guard: OwnerGuard,
    reduce: (record: StoredRun, now: Date) => TerminalResult,
  ): Promise<AgentRun> {
    const cached = written.get(runId);
    const base =
      cached && cached.record.run.revision === guard.expectedRevision
        ? cached
        : await loadExisting(runId);
    const now = await clock();
    const mutation = reduce(base.record, now);
    if ('duplicate' in mutation) return structuredClone(mutation.duplicate.run);
    if (await write(runId, base, mutation)) return mutation.record.run;
    // A head that no longer parses throws `StoreRecordError` here (nothing was written).
    const { record: fresh } = await loadExisting(runId);
    // Re-reducing throws the precise error for the fresh record (or finds a duplicate).
    const again = reduce(fresh, now);
    if ('duplicate' in again) return again.duplicate.run;
    throw new StoreConflictError(runId, guard.expectedRevision, fresh.run.revision);
  }

  async function unowned(
    runId: string,
    reduce: (record: StoredRun | null, now: Date) => Mutation,
  ): Promise<StoredRun> {
    for (let attempt = 1; ; attempt++) {
      const base = await load(runId);
      // Read after the load: a takeover decides on a time no earlier than the record it read.
      const mutation = reduce(base?.record ?? null, await clock());
      if (await write(runId, base, mutation)) return mutation.record;
      if (attempt >= UNOWNED_ATTEMPTS) {
        const fresh = await load(runId);
        throw new StoreConflictError(
          runId,
          base?.record.run.revision ?? 0,
          fresh?.record.run.revision ?? 0,
        );
      }
    }
  }

  /**
   * Stored events validated: packed, or whole (no `runId`; or one naming this run, as written
   * before).
   */
  function parseEvents(runId: string, raw: readonly unknown[]): DurableRunEvent[] {
    return raw.map((value) => {
      const stored = value as { type?: unknown; runId?: unknown } | null;
      if (typeof stored === 'object' && stored !== null && (stored.runId ?? runId) !== runId) {
        throw new StoreRecordError(runId, 'event', [
          { path: 'runId', message: `the event names run ${String(stored.runId)}` },
        ]);
      }
      const parsed = safeParseDurableRunEvent(unpackStoredEvent(runId, stored));
      if (!parsed.success) throw new StoreRecordError(runId, 'event', parsed.error.issues);
      return parsed.data;
    });
  }

  // Every id is checked against `RunIdSchema` first, whatever the driver (`InvalidRunIdError`).
  return withRunIdValidation({
    async createRun(input) {
      const { runId } = input;
      return (await unowned(runId, (record, now) => reduceCreateRun(record, input, now))).run;
    },

    async acquireRun(runId, input) {
      const record = await unowned(runId, (record, now) => {
        if (!record) throw new RunNotFoundError(runId);
        return reduceAcquireRun(record, input, now);
      });
      return record.run;
    },

    async takeOverRun(runId, input) {
      const record = await unowned(runId, (record, now) => {
        if (!record) throw new RunNotFoundError(runId);
        return reduceAcquireRun(record, { ...input, takeover: true }, now);
      });
      return { run: record.run, takeovers: record.takeovers };
    },

    releaseLease(runId, guard) {
      return owned(runId, guard, (record, now) => reduceReleaseLease(record, guard, now));
    },

    handOffLease(runId, guard) {
      return owned(runId, guard, (record, now) => reduceHandOffLease(record, guard, now));
    },

    async findExpiredRuns({ now: at, limit = 100 } = {}) {
      const cutoff = at ?? (await clock());
      const rows = await driver.findExpiredRuns({ now: cutoff.toISOString(), limit });
      return rows.map((row) => {
        const parsed = ExpiredRunSchema.safeParse(row);
        if (parsed.success) return parsed.data;
        const runId = (row as { runId?: unknown } | null)?.runId;
        throw new StoreRecordError(
          typeof runId === 'string' ? runId : '(unknown)',
          'expired run',
          issuesOf(parsed.error),
        );
      });
    },

    recordRunOperation(runId, guard, operation) {
      return owned(runId, guard, (record, now) =>
        reduceRecordRunOperation(record, guard, operation, now),
      );
    },

    saveAssistantCheckpoint(runId, guard, message) {
      return owned(runId, guard, (record, now) =>
        reduceSaveAssistantCheckpoint(record, guard, message, now),
      );
    },

    appendAssistant(runId, guard, append) {
      return owned(runId, guard, (record, now) =>
        reduceAppendAssistant(record, guard, append, now),
      );
    },

    commitTerminal(runId, guard, terminal) {
      return owned(runId, guard, (record, now) =>
        reduceCommitTerminal(record, guard, terminal, now),
      );
    },

    renewLease(runId, guard) {
      return owned(runId, guard, (record, now) => reduceRenewLease(record, guard, now));
    },

    async getRun(runId) {
      return (await loadExisting(runId)).record.run;
    },

    async getSnapshot(runId) {
      // One read of the log serves both: the events after the snapshot (folded) and those from
      // the assistant's consolidation on (materialised). A snapshot's consolidation is never
      // later than the run's, so reading from the earlier of the two covers both; a snapshot
      // without an assistant has every assistant write after it.
      const snapshot = await loadSnapshot(runId);
      const consolidated = snapshot?.assistant?.consolidatedRevision;
      const after = Math.max(
        0,
        Math.min(
          snapshot?.run.revision ?? 0,
          consolidated === undefined ? Infinity : consolidated - 1,
        ),
      );
      const events = parseEvents(runId, await driver.readEvents(runId, after));
      const loaded = fold(runId, snapshot, events);
      if (!loaded) throw new RunNotFoundError(runId);
      const { record } = loaded;
      const pointer = record.assistant;
      if (pointer === null) {
        return { run: record.run, assistant: null, revision: record.run.revision };
      }
      const assistant = await materialiseAssistant(runId, pointer, events);
      return { run: record.run, assistant, revision: record.run.revision };
    },

    async readEvents(runId, { afterRevision = 0 } = {}) {
      const raw = await driver.readEvents(runId, afterRevision);
      if (raw.length === 0 && !(await load(runId))) throw new RunNotFoundError(runId);
      return parseEvents(runId, raw);
    },
    now: clock,
    controlRequests: controlRequestsOf(driver, clock),
    runInputs: runInputsOf(driver, clock),
  });
}

export type { AgentRuntimeStore, ExpiredRun } from './agent-runtime-store-api';
