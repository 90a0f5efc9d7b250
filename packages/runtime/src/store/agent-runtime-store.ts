import {
  type AgentRun,
  type DurableRunEvent,
  type RunOperation,
  type RunSnapshot,
  safeParseDurableRunEvent,
  TimestampSchema,
  type UIMessage,
} from '@runlight/protocol';
import { z } from 'zod';
import { RunNotFoundError } from '../errors/run-not-found-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import { StoreRecordError } from '../errors/store-record-error';
import type { AgentRuntimeDriver } from './driver';
import { materialiseAssistant } from './materialise-assistant';
import {
  type AssistantAppend,
  type OwnerGuard,
  reduceAcquireRun,
  reduceAppendAssistant,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceReleaseLease,
  reduceRenewLease,
  reduceSaveAssistantCheckpoint,
  type TerminalCommit,
  type TerminalResult,
} from './reducer';
import { type Mutation, type StoredRun, StoredRunSchema } from './stored-run';

/**
 * The store the runner talks to. Every owned mutation takes `{ owner, fencingToken,
 * expectedRevision }` and fails with `FencingError` (owner or token stale) or
 * `StoreConflictError` (revision stale); each success bumps `revision` by exactly one and
 * appends exactly one durable event.
 */
export interface AgentRuntimeStore {
  createRun(input: { runId: string }): Promise<AgentRun>;
  acquireRun(runId: string, input: { owner: string; leaseMs: number }): Promise<AgentRun>;
  recordRunOperation(runId: string, guard: OwnerGuard, operation: RunOperation): Promise<AgentRun>;
  /** Consolidates the whole assistant message (an `assistant-checkpoint` event). */
  saveAssistantCheckpoint(runId: string, guard: OwnerGuard, message: UIMessage): Promise<AgentRun>;
  /**
   * Appends chunks to the assistant message (an `assistant-append` event), extending the last
   * assistant write, which `append.baseRevision` names.
   */
  appendAssistant(runId: string, guard: OwnerGuard, append: AssistantAppend): Promise<AgentRun>;
  commitTerminal(runId: string, guard: OwnerGuard, terminal: TerminalCommit): Promise<AgentRun>;
  /** Renews the owner's lease and nothing else (a `run-status` `lease-renewed` event). */
  renewLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  /**
   * Releases the owner's lease (a `run-status` `lease-released` event; `leaseExpiresAt` null):
   * a run paused for tool approvals has no live owner to lose.
   */
  releaseLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  /**
   * Acquires a run whose owner's lease expired — and only such a run: a live lease is a
   * `FencingError` `lease-held` (another recoverer won, or the owner is alive), a run nobody
   * leases an `InvalidTransitionError` `run-not-leased`, an ended one `run-ended`. The
   * compare-and-set decides between competing recoverers. `takeovers` counts every takeover
   * of the run so far, this one included.
   */
  takeOverRun(
    runId: string,
    input: { owner: string; leaseMs: number },
  ): Promise<{ run: AgentRun; takeovers: number }>;
  /**
   * Runs whose lease expired by `now` (default: the store's clock), oldest expiry first, at most
   * `limit` (default 100).
   */
  findExpiredRuns(query?: { now?: Date; limit?: number }): Promise<ExpiredRun[]>;
  getRun(runId: string): Promise<AgentRun>;
  /** The run and its assistant message, materialised from its last consolidation and appends. */
  getSnapshot(runId: string): Promise<RunSnapshot>;
  readEvents(runId: string, options?: { afterRevision?: number }): Promise<DurableRunEvent[]>;
}

/** A run whose owner went silent: its lease expired at `leaseExpiresAt`. */
export interface ExpiredRun {
  runId: string;
  leaseExpiresAt: string;
}

const ExpiredRunSchema = z.strictObject({
  runId: z.string().min(1),
  leaseExpiresAt: TimestampSchema,
});

export interface AgentRuntimeStoreOptions {
  /** The wall clock for `createdAt`, `updatedAt` and leases. Injectable for tests. */
  now?: () => Date;
}

function issuesOf(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.join('.') || '(root)',
    message: issue.message,
  }));
}

/** Unowned mutations (create, acquire) retry a lost compare-and-set this many times. */
const UNOWNED_ATTEMPTS = 5;
/** How many runs' last written records the store remembers (see `written` below). */
const WRITTEN_CACHE_SIZE = 1_024;

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
  const now = options.now ?? (() => new Date());
  /**
   * The record this store last wrote per run. An owned mutation naming exactly that revision
   * reduces against it instead of loading: the driver's compare-and-set on the revision still
   * decides, so a write elsewhere makes it fail and the fresh record is loaded to diagnose.
   * This saves a driver round trip and a record validation per mutation of a busy run.
   */
  const written = new Map<string, StoredRun>();
  const remember = (runId: string, record: StoredRun) => {
    written.delete(runId);
    if (written.size >= WRITTEN_CACHE_SIZE) written.delete(written.keys().next().value as string);
    // A copy: callers hold the returned run and the message they passed in.
    written.set(runId, structuredClone(record));
  };

  async function load(runId: string): Promise<StoredRun | null> {
    const raw = await driver.load(runId);
    if (raw === null || raw === undefined) return null;
    const parsed = StoredRunSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    throw new StoreRecordError(runId, 'run record', issuesOf(parsed.error));
  }

  async function loadExisting(runId: string): Promise<StoredRun> {
    const record = await load(runId);
    if (!record) throw new RunNotFoundError(runId);
    return record;
  }

  async function write(runId: string, expected: number | null, mutation: Mutation) {
    const done = await driver.compareAndSet(runId, expected, mutation.record, [mutation.event]);
    if (done) remember(runId, mutation.record);
    else written.delete(runId);
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
    reduce: (record: StoredRun) => TerminalResult,
  ): Promise<AgentRun> {
    const cached = written.get(runId);
    const record =
      cached && cached.run.revision === guard.expectedRevision ? cached : await loadExisting(runId);
    const mutation = reduce(record);
    if ('duplicate' in mutation) return structuredClone(mutation.duplicate.run);
    if (await write(runId, record.run.revision, mutation)) return mutation.record.run;
    const fresh = await loadExisting(runId);
    // Re-reducing throws the precise error for the fresh record (or finds a duplicate).
    const again = reduce(fresh);
    if ('duplicate' in again) return again.duplicate.run;
    throw new StoreConflictError(runId, guard.expectedRevision, fresh.run.revision);
  }

  async function unowned(
    runId: string,
    reduce: (record: StoredRun | null) => Mutation,
  ): Promise<StoredRun> {
    for (let attempt = 1; ; attempt++) {
      const record = await load(runId);
      const mutation = reduce(record);
      if (await write(runId, record ? record.run.revision : null, mutation)) {
        return mutation.record;
      }
      if (attempt >= UNOWNED_ATTEMPTS) {
        const fresh = await load(runId);
        throw new StoreConflictError(runId, record?.run.revision ?? 0, fresh?.run.revision ?? 0);
      }
    }
  }

  function parseEvents(runId: string, raw: readonly unknown[]): DurableRunEvent[] {
    return raw.map((value) => {
      const parsed = safeParseDurableRunEvent(value);
      if (!parsed.success) throw new StoreRecordError(runId, 'event', parsed.error.issues);
      return parsed.data;
    });
  }

  return {
    async createRun({ runId }) {
      return (await unowned(runId, (record) => reduceCreateRun(record, { runId }, now()))).run;
    },

    async acquireRun(runId, input) {
      const record = await unowned(runId, (record) => {
        if (!record) throw new RunNotFoundError(runId);
        return reduceAcquireRun(record, input, now());
      });
      return record.run;
    },

    async takeOverRun(runId, input) {
      const record = await unowned(runId, (record) => {
        if (!record) throw new RunNotFoundError(runId);
        return reduceAcquireRun(record, { ...input, takeover: true }, now());
      });
      return { run: record.run, takeovers: record.takeovers };
    },

    releaseLease(runId, guard) {
      return owned(runId, guard, (record) => reduceReleaseLease(record, guard, now()));
    },

    async findExpiredRuns({ now: at = now(), limit = 100 } = {}) {
      const rows = await driver.findExpiredRuns({ now: at.toISOString(), limit });
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
      return owned(runId, guard, (record) =>
        reduceRecordRunOperation(record, guard, operation, now()),
      );
    },

    saveAssistantCheckpoint(runId, guard, message) {
      return owned(runId, guard, (record) =>
        reduceSaveAssistantCheckpoint(record, guard, message, now()),
      );
    },

    appendAssistant(runId, guard, append) {
      return owned(runId, guard, (record) => reduceAppendAssistant(record, guard, append, now()));
    },

    commitTerminal(runId, guard, terminal) {
      return owned(runId, guard, (record) => reduceCommitTerminal(record, guard, terminal, now()));
    },

    renewLease(runId, guard) {
      return owned(runId, guard, (record) => reduceRenewLease(record, guard, now()));
    },

    async getRun(runId) {
      return (await loadExisting(runId)).run;
    },

    async getSnapshot(runId) {
      const record = await loadExisting(runId);
      const pointer = record.assistant;
      if (pointer === null)
        return { run: record.run, assistant: null, revision: record.run.revision };
      // Events are immutable at their revision, so events read after the record agree with it.
      const events = parseEvents(
        runId,
        await driver.readEvents(runId, Math.max(0, pointer.consolidatedRevision - 1)),
      );
      const assistant = await materialiseAssistant(runId, pointer, events);
      return { run: record.run, assistant, revision: record.run.revision };
    },

    async readEvents(runId, { afterRevision = 0 } = {}) {
      const raw = await driver.readEvents(runId, afterRevision);
      if (raw.length === 0 && !(await load(runId))) throw new RunNotFoundError(runId);
      return parseEvents(runId, raw);
    },
  };
}
