import type {
  AgentRun,
  DurableRunEvent,
  RunOperation,
  RunSnapshot,
  UIMessage,
} from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { StoreUnavailableError } from '../../errors/store-unavailable-error';
import type { RunEventBus } from '../../events/run-event-bus';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { OwnerGuard, TerminalCommit } from '../../store/log/reducer';
import type { RunTelemetry } from '../../telemetry/run-telemetry';
import type { RuntimeLogEntry } from '../run-options';
import { PublishedRevisions } from './published-revisions';
import { republisher } from './publishing-store';
import { isDecision, pause, retrySchedule, type StoreRetryOptions } from './retry-schedule';
import { same } from './same-record';

export { DEFAULT_STORE_RETRY, type StoreRetryOptions } from './retry-schedule';

/**
 * A store decorator that makes each mutation of the runner survive a transient store error,
 * inside the caller's queue turn (it wraps the store `OwnedRun` calls):
 *
 * - after a throw it reloads the run: when the stored record at `expectedRevision + 1` is
 *   exactly what this mutation produced (under this owner's fencing token), the write landed
 *   and only its answer was lost — the stored event is read from the log and published (so a
 *   client sees what landed) and the mutation returns the stored run;
 * - a record that moved on without it is a conflict (`StoreConflictError`, `storage_conflict`);
 * - otherwise the mutation is tried again with capped, jittered exponential pauses for up to
 *   the retry budget (by default the lease); after the last it throws `StoreUnavailableError` (`storage_unavailable`).
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
    /** The telemetry, told of a landed write's event as `publishingStore` tells it of others. */
    telemetry?: Pick<RunTelemetry, 'observe'> | undefined;
  },
): AgentRuntimeStore {
  const { store, bus } = deps;
  const republish = republisher(bus, store, deps.telemetry);
  const schedule = retrySchedule(deps.retry);
  const of = Number.isFinite(schedule.attempts) ? ` of ${schedule.attempts}` : '';
  const warn = (runId: string, message: string, error: unknown) => {
    try {
      deps.log({ level: 'warn', message, runId, error });
    } catch {
      // A failing log hook changes nothing.
    }
  };

  const published = new PublishedRevisions();
  const markPublished = (run: AgentRun) => published.mark(run);

  /**
   * Publishes the stored events after the last published one up to `revision`, in order —
   * only while the run is still held under `guard`'s token: then every event since this
   * runtime's acquisition is its own (an acquisition changes the token, and tokens never go
   * back). Another owner's events are that owner's to publish.
   */
  async function publishUpTo(
    runId: string,
    revision: number,
    guard: { owner: string; fencingToken: number },
    /** The caller saw the run held under `guard` at `revision` or later. */
    held = false,
  ): Promise<void> {
    const after = published.get(runId);
    if (after === undefined || after >= revision) return;
    try {
      const run = held ? null : await read(runId, () => store.getRun(runId));
      if (
        run &&
        (run.owner !== guard.owner ||
          run.fencingToken !== guard.fencingToken ||
          run.revision < revision)
      ) {
        published.delete(runId);
        return;
      }
      const events = await read(runId, () => store.readEvents(runId, { afterRevision: after }));
      for (const event of events) {
        if (event.revision > revision) break;
        await republish(event, run);
        published.set(runId, event.revision);
      }
    } catch (error) {
      warn(runId, 'A landed write could not be read back to publish it', error);
    }
  }

  /** Publishes the event at `revision` if it is this runtime's write (`mine`), then forgets. */
  async function publishLandedBefore(
    runId: string,
    revision: number,
    mine: (event: DurableRunEvent) => boolean,
  ): Promise<void> {
    if (published.get(runId) !== revision - 1) return;
    try {
      const events = await read(runId, () =>
        store.readEvents(runId, { afterRevision: revision - 1 }),
      );
      const event = events.find((candidate) => candidate.revision === revision);
      if (event && mine(event)) await republish(event, null);
    } catch (error) {
      warn(runId, 'A landed write could not be read back to publish it', error);
    }
    published.delete(runId);
  }

  /** Publishes the stored event at `revision` (what landed without an answer). */
  async function publishLanded(runId: string, run: AgentRun, guard: OwnerGuard): Promise<void> {
    // The snapshot that recognised the write showed it held under `guard` at this revision.
    await publishUpTo(runId, run.revision, guard, true);
    markPublished(run);
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
    landedEvent: (event: DurableRunEvent) => boolean,
  ): Promise<AgentRun> {
    let lastError: unknown;
    // A write of an earlier turn that landed unseen is published before this one.
    await publishUpTo(runId, guard.expectedRevision, guard);
    const tries = schedule.start();
    for (let attempt = 1; ; attempt++) {
      try {
        return markPublished(await write());
      } catch (error) {
        // A lost compare-and-set on the first try is the store's decision: another writer.
        // Later, it may be this mutation's own earlier try that landed unseen: checked below.
        if (isDecision(error) || (attempt === 1 && StoreConflictError.isInstance(error))) {
          // An earlier try may have landed before another owner took the run.
          if (attempt > 1 && FencingError.isInstance(error)) {
            await publishLandedBefore(runId, guard.expectedRevision + 1, landedEvent);
          }
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
          await publishLanded(runId, run, guard);
          return run;
        }
        if (!ours) {
          // Another owner took the run; this write may still have landed just before it.
          await publishLandedBefore(runId, guard.expectedRevision + 1, landedEvent);
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
      const wait = tries.next();
      if (wait === undefined) break;
      warn(runId, `A store write failed (try ${attempt}${of}); it is retried`, lastError);
      await pause(wait);
    }
    throw new StoreUnavailableError(runId, tries.count, { cause: lastError });
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
    /** `tries`: how many tries before this one may have landed unseen. */
    landed: (run: AgentRun, tries: number) => Promise<readonly DurableRunEvent[]>,
  ): Promise<AgentRun> {
    let lastError: unknown;
    try {
      return markPublished(await first());
    } catch (error) {
      if (isDecision(error) || StoreConflictError.isInstance(error)) throw error;
      lastError = error;
    }
    const tries = schedule.start();
    for (let attempt = 2; ; attempt++) {
      const wait = tries.next();
      if (wait === undefined) break;
      warn(runId, `A store write failed (try ${attempt - 1}${of}); it is retried`, lastError);
      await pause(wait);
      try {
        const run = await retry();
        try {
          for (const event of await landed(run, attempt)) bus.publish(event);
        } catch (error) {
          warn(runId, 'A landed write could not be read back to publish it', error);
        }
        return markPublished(run);
      } catch (error) {
        if (isDecision(error) || StoreConflictError.isInstance(error)) throw error;
        lastError = error;
      }
    }
    throw new StoreUnavailableError(runId, tries.count, { cause: lastError });
  }

  const after = (guard: OwnerGuard) => guard.expectedRevision + 1;

  /** A read, retried after a transient error like a mutation (reads change nothing). */
  async function read<T>(runId: string, call: () => Promise<T>): Promise<T> {
    let lastError: unknown;
    const tries = schedule.start();
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (isDecision(error)) throw error;
        lastError = error;
      }
      const wait = tries.next();
      if (wait === undefined) break;
      await pause(wait);
    }
    throw new StoreUnavailableError(runId, tries.count, { cause: lastError });
  }

  return {
    getRun: (runId) => read(runId, () => store.getRun(runId)),
    getSnapshot: (runId) => read(runId, () => store.getSnapshot(runId)),
    readEvents: (runId, options) => read(runId, () => store.readEvents(runId, options)),
    findExpiredRuns: (query) => publishing.findExpiredRuns(query),
    ...(publishing.now ? { now: publishing.now.bind(publishing) } : {}),
    // A takeover is the recovery pass's: its own conditions decide, it is not retried here.
    takeOverRun: (runId, input) => publishing.takeOverRun(runId, input),
    appendAssistant(runId, guard, append) {
      // Under this owner's token only this runtime's queue writes: a record at
      // `expectedRevision + 1` held under it is this append.
      return owned(
        runId,
        guard,
        () => publishing.appendAssistant(runId, guard, append),
        () => true,
        // Right after this runtime's last revision, another owner's first event is its
        // acquisition: an append there is this runtime's.
        (event) => event.type === 'assistant-append',
      );
    },
    releaseLease(runId, guard) {
      return owned(
        runId,
        guard,
        () => publishing.releaseLease(runId, guard),
        () => true,
        () => false,
      );
    },
    handOffLease(runId, guard) {
      return owned(
        runId,
        guard,
        () => publishing.handOffLease(runId, guard),
        () => true,
        () => false,
      );
    },
    createRun(input) {
      return unowned(
        input.runId,
        () => publishing.createRun(input),
        async () => {
          try {
            return await store.createRun(input);
          } catch (error) {
            // The lost first try may have created it: a run still as created is that one.
            const run = await read(input.runId, () => store.getRun(input.runId)).catch(() => null);
            if (run && run.revision === 1 && run.status === 'queued') return run;
            throw error;
          }
        },
        async (run) =>
          (await read(run.id, () => store.readEvents(run.id, { afterRevision: 0 }))).filter(
            (event) => event.revision === run.revision,
          ),
      );
    },
    acquireRun(runId, input) {
      return unowned(
        runId,
        () => publishing.acquireRun(runId, input),
        () => store.acquireRun(runId, input),
        async (run, tries) => {
          const from = Math.max(0, run.revision - tries);
          const events = await read(runId, () => store.readEvents(runId, { afterRevision: from }));
          // Lost tries that landed: this owner's acquisitions right before this one, each
          // under the token before the next.
          const lost = (event: DurableRunEvent) =>
            event.type === 'run-status' &&
            event.change === 'acquired' &&
            event.owner === input.owner &&
            event.fencingToken === run.fencingToken - (run.revision - event.revision);
          // An acquisition this runtime published already (an earlier call's) is not lost.
          const seen = published.get(runId) ?? 0;
          const mine: DurableRunEvent[] = [];
          for (const event of [...events].reverse()) {
            if (event.revision > run.revision) continue;
            if (event.revision <= seen) break;
            if (event.revision !== run.revision && !lost(event)) break;
            mine.unshift(event);
          }
          return mine;
        },
      );
    },
    recordRunOperation(runId, guard, operation: RunOperation) {
      return owned(
        runId,
        guard,
        () => publishing.recordRunOperation(runId, guard, operation),
        ({ run }) => same(run.lastOperation, operation),
        (event) => event.type === 'run-operation' && same(event.operation, operation),
      );
    },
    saveAssistantCheckpoint(runId, guard, message: UIMessage) {
      return owned(
        runId,
        guard,
        () => publishing.saveAssistantCheckpoint(runId, guard, message),
        ({ assistant }) => assistant?.revision === after(guard) && same(assistant.message, message),
        (event) => event.type === 'assistant-checkpoint' && same(event.checkpoint.message, message),
      );
    },
    renewLease(runId, guard) {
      return owned(
        runId,
        guard,
        () => publishing.renewLease(runId, guard),
        () => true,
        (event) =>
          event.type === 'run-status' &&
          event.change === 'lease-renewed' &&
          event.owner === guard.owner &&
          event.fencingToken === guard.fencingToken,
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
        () => false,
      );
    },
  };
}
