import {
  type AgentRun,
  type DurableRunEvent,
  type RunOperation,
  type RunSnapshot,
  safeParseDurableRunEvent,
  type UIMessage,
} from '@runlight/protocol';
import { RunNotFoundError } from '../errors/run-not-found-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import { StoreRecordError } from '../errors/store-record-error';
import type { AgentRuntimeDriver } from './driver';
import {
  type OwnerGuard,
  reduceAcquireRun,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceRenewLease,
  reduceSaveAssistantCheckpoint,
  type TerminalCommit,
  type TerminalResult,
} from './reducer';
import { withRunIdValidation } from './run-id-guard';
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
  saveAssistantCheckpoint(runId: string, guard: OwnerGuard, message: UIMessage): Promise<AgentRun>;
  commitTerminal(runId: string, guard: OwnerGuard, terminal: TerminalCommit): Promise<AgentRun>;
  /** Renews the owner's lease and nothing else (a `run-status` `lease-renewed` event). */
  renewLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  getRun(runId: string): Promise<AgentRun>;
  getSnapshot(runId: string): Promise<RunSnapshot>;
  readEvents(runId: string, options?: { afterRevision?: number }): Promise<DurableRunEvent[]>;
}

export interface AgentRuntimeStoreOptions {
  /** The wall clock for `createdAt`, `updatedAt` and leases. Injectable for tests. */
  now?: () => Date;
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
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || '(root)',
      message: issue.message,
    }));
    throw new StoreRecordError(runId, 'run record', issues);
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
  ): Promise<AgentRun> {
    for (let attempt = 1; ; attempt++) {
      const record = await load(runId);
      const mutation = reduce(record);
      if (await write(runId, record ? record.run.revision : null, mutation)) {
        return mutation.record.run;
      }
      if (attempt >= UNOWNED_ATTEMPTS) {
        const fresh = await load(runId);
        throw new StoreConflictError(runId, record?.run.revision ?? 0, fresh?.run.revision ?? 0);
      }
    }
  }

  // Every id is checked against `RunIdSchema` first, whatever the driver (`InvalidRunIdError`).
  return withRunIdValidation({
    createRun({ runId }) {
      return unowned(runId, (record) => reduceCreateRun(record, { runId }, now()));
    },

    acquireRun(runId, input) {
      return unowned(runId, (record) => {
        if (!record) throw new RunNotFoundError(runId);
        return reduceAcquireRun(record, input, now());
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
      return { run: record.run, assistant: record.assistant, revision: record.run.revision };
    },

    async readEvents(runId, { afterRevision = 0 } = {}) {
      const raw = await driver.readEvents(runId, afterRevision);
      if (raw.length === 0 && !(await load(runId))) throw new RunNotFoundError(runId);
      return raw.map((value) => {
        const parsed = safeParseDurableRunEvent(value);
        if (!parsed.success) throw new StoreRecordError(runId, 'event', parsed.error.issues);
        return parsed.data;
      });
    },
  });
}
