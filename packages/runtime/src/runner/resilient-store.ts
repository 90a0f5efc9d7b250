import type {
  AgentRun,
  DurableRunEvent,
  RunOperation,
  RunSnapshot,
  UIMessage,
} from '@runlight/protocol';
import { FencingError } from '../errors/fencing-error';
import { RunlightError } from '../errors/runlight-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import { StoreUnavailableError } from '../errors/store-unavailable-error';
import type { RunEventBus } from '../events/run-event-bus';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import type { OwnerGuard, TerminalCommit } from '../store/reducer';
import type { RuntimeLogEntry } from './run-options';

/** How often one store mutation is tried, and the first pause between tries (doubling). */
export interface StoreRetryOptions {
  /** Tries of one mutation, the first included. Default 4. */
  attempts?: number;
  /** The pause before the second try, doubled before each further one. Default 20 ms. */
  delayMs?: number;
}

export const DEFAULT_STORE_RETRY: Required<StoreRetryOptions> = { attempts: 4, delayMs: 20 };

/**
 * Errors that say what the store decided (a rule, a lost lease, a missing run, a bad record):
 * repeating the mutation cannot change them. Everything else — a driver's dropped connection,
 * a timeout — may be transient, and a write may even have landed before its answer was lost.
 */
function isDecision(error: unknown): boolean {
  return RunlightError.isRunlightError(error) && !StoreConflictError.isInstance(error);
}

/** JSON with sorted keys: equal for records equal as stored (key order and undefined aside). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

const pause = (ms: number) =>
  ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A store decorator that makes each mutation of the runner survive a transient store error,
 * inside the caller's queue turn (it wraps the store `OwnedRun` calls):
 *
 * - after a throw it reloads the run: when the stored record at `expectedRevision + 1` is
 *   exactly what this mutation produced (under this owner's fencing token), the write landed
 *   and only its answer was lost — the stored event is read from the log and published (so a
 *   client sees what landed) and the mutation returns the stored run;
 * - a record that moved on without it is a conflict (`StoreConflictError`, `storage_conflict`);
 * - otherwise the mutation is tried again, a bounded number of times with short doubling
 *   pauses; after the last it throws `StoreUnavailableError` (`storage_unavailable`).
 *
 * Rule errors, `FencingError` and missing runs are decisions and are never retried.
 *
 * @example
 * const publishing = resilientStore(publishingStore(store, bus), { store, bus, log });
 */
export function resilientStore(
  publishing: AgentRuntimeStore,
  deps: {
    /** The raw store: reads that check what landed. */
    store: AgentRuntimeStore;
    bus: RunEventBus;
    log: (entry: RuntimeLogEntry) => void;
    retry?: StoreRetryOptions;
  },
): AgentRuntimeStore {
  const { store, bus } = deps;
  const attempts = Math.max(1, Math.floor(deps.retry?.attempts ?? DEFAULT_STORE_RETRY.attempts));
  const delayMs = Math.max(0, deps.retry?.delayMs ?? DEFAULT_STORE_RETRY.delayMs);
  const warn = (runId: string, message: string, error: unknown) => {
    try {
      deps.log({ level: 'warn', message, runId, error });
    } catch {
      // A failing log hook changes nothing.
    }
  };

  /** Publishes the stored event at `revision` (what landed without an answer). */
  async function publishLanded(runId: string, revision: number): Promise<void> {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const events = await store.readEvents(runId, { afterRevision: revision - 1 });
        const event = events.find((candidate) => candidate.revision === revision);
        if (event) bus.publish(event);
        return;
      } catch (error) {
        if (attempt === attempts) {
          warn(runId, 'A landed write could not be read back to publish it', error);
          return;
        }
        await pause(delayMs * 2 ** (attempt - 1));
      }
    }
  }

  /**
   * One owned mutation: tried, checked for a landed write after a throw, retried. `landed`
   * says whether a snapshot at `expectedRevision + 1` holds exactly this mutation's result.
   */
  async function owned(
    runId: string,
    guard: OwnerGuard,
    write: () => Promise<AgentRun>,
    landed: (snapshot: RunSnapshot) => boolean,
  ): Promise<AgentRun> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await write();
      } catch (error) {
        // A lost compare-and-set on the first try is the store's decision: another writer.
        // Later, it may be this mutation's own earlier try that landed unseen: checked below.
        if (isDecision(error) || (attempt === 1 && StoreConflictError.isInstance(error))) {
          throw error;
        }
        lastError = error;
      }
      let snapshot: RunSnapshot | undefined;
      try {
        snapshot = await store.getSnapshot(runId);
      } catch (error) {
        lastError = error;
      }
      if (snapshot) {
        const { run } = snapshot;
        const ours = run.owner === guard.owner && run.fencingToken === guard.fencingToken;
        if (ours && run.revision === guard.expectedRevision + 1 && landed(snapshot)) {
          warn(
            runId,
            'A store write landed but its answer was lost; it was not retried',
            lastError,
          );
          await publishLanded(runId, run.revision);
          return run;
        }
        if (!ours) {
          throw new FencingError(
            runId,
            run.owner !== guard.owner ? 'owner-mismatch' : 'stale-fencing-token',
            {
              owner: guard.owner,
              fencingToken: guard.fencingToken,
              currentOwner: run.owner,
              currentFencingToken: run.fencingToken,
            },
          );
        }
        if (run.revision !== guard.expectedRevision) {
          throw StoreConflictError.isInstance(lastError)
            ? lastError
            : new StoreConflictError(runId, guard.expectedRevision, run.revision);
        }
      }
      if (attempt < attempts) {
        warn(
          runId,
          `A store write failed (try ${attempt} of ${attempts}); it is retried`,
          lastError,
        );
        await pause(delayMs * 2 ** (attempt - 1));
      }
    }
    throw new StoreUnavailableError(runId, attempts, { cause: lastError });
  }

  /**
   * An unowned mutation (create, acquire) after a transient error: retried against the raw
   * store, then what landed is published from the log in order — a lost first try included
   * (`lost` picks it out of the events just before the retry's own).
   */
  async function unowned(
    runId: string,
    first: () => Promise<AgentRun>,
    retry: () => Promise<AgentRun>,
    published: (run: AgentRun) => Promise<readonly DurableRunEvent[]>,
  ): Promise<AgentRun> {
    let lastError: unknown;
    try {
      return await first();
    } catch (error) {
      if (isDecision(error) || StoreConflictError.isInstance(error)) throw error;
      lastError = error;
    }
    for (let attempt = 2; attempt <= attempts; attempt++) {
      warn(
        runId,
        `A store write failed (try ${attempt - 1} of ${attempts}); it is retried`,
        lastError,
      );
      await pause(delayMs * 2 ** (attempt - 2));
      try {
        const run = await retry();
        try {
          for (const event of await published(run)) bus.publish(event);
        } catch (error) {
          warn(runId, 'A landed write could not be read back to publish it', error);
        }
        return run;
      } catch (error) {
        if (isDecision(error) || StoreConflictError.isInstance(error)) throw error;
        lastError = error;
      }
    }
    throw new StoreUnavailableError(runId, attempts, { cause: lastError });
  }

  const after = (guard: OwnerGuard) => guard.expectedRevision + 1;

  return {
    getRun: (runId) => publishing.getRun(runId),
    getSnapshot: (runId) => publishing.getSnapshot(runId),
    readEvents: (runId, options) => publishing.readEvents(runId, options),
    createRun(input) {
      return unowned(
        input.runId,
        () => publishing.createRun(input),
        async () => {
          try {
            return await store.createRun(input);
          } catch (error) {
            // The lost first try may have created it: a run still as created is that one.
            const run = await store.getRun(input.runId).catch(() => null);
            if (run && run.revision === 1 && run.status === 'queued') return run;
            throw error;
          }
        },
        async (run) => store.readEvents(run.id, { afterRevision: run.revision - 1 }),
      );
    },
    acquireRun(runId, input) {
      return unowned(
        runId,
        () => publishing.acquireRun(runId, input),
        () => store.acquireRun(runId, input),
        async (run) => {
          const events = await store.readEvents(runId, { afterRevision: run.revision - 2 });
          // The lost first try, if it landed: this owner's acquisition right before this one.
          const lost = (event: DurableRunEvent) =>
            event.revision === run.revision - 1 &&
            event.type === 'run-status' &&
            event.change === 'acquired' &&
            event.owner === input.owner &&
            event.fencingToken === run.fencingToken - 1;
          return events.filter((event) => event.revision === run.revision || lost(event));
        },
      );
    },
    recordRunOperation(runId, guard, operation: RunOperation) {
      return owned(
        runId,
        guard,
        () => publishing.recordRunOperation(runId, guard, operation),
        ({ run }) => same(run.lastOperation, operation),
      );
    },
    saveAssistantCheckpoint(runId, guard, message: UIMessage) {
      return owned(
        runId,
        guard,
        () => publishing.saveAssistantCheckpoint(runId, guard, message),
        ({ assistant }) => assistant?.revision === after(guard) && same(assistant.message, message),
      );
    },
    renewLease(runId, guard) {
      return owned(
        runId,
        guard,
        () => publishing.renewLease(runId, guard),
        () => true,
      );
    },
    commitTerminal(runId, guard, terminal: TerminalCommit) {
      return owned(
        runId,
        guard,
        () => publishing.commitTerminal(runId, guard, terminal),
        ({ run }) =>
          run.status === terminal.status &&
          (terminal.status !== 'failed' ||
            (run.failure?.code === terminal.failure.code &&
              run.failure?.operationId === terminal.failure.operationId)),
      );
    },
  };
}
