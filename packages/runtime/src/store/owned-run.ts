import type { AgentRun, RunOperation, UIMessage } from '@runlight/protocol';
import { FencingError } from '../errors/fencing-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import type { AgentRuntimeStore } from './agent-runtime-store';
import type { AssistantAppend, TerminalCommit } from './log/reducer';
import { RunMutationQueue } from './run-mutation-queue';

export interface OwnedRunOptions {
  /** Shared by every handle of the store in this process, so handles of one run take turns. */
  queue?: RunMutationQueue;
  /** How often `commitTerminal` is tried when it loses a revision race. Default 3. */
  terminalAttempts?: number;
}

/**
 * The writer side of one acquired run. Every owned mutation goes through the per-run queue
 * and names the revision its predecessor produced — read inside its turn, not before its
 * await — so two independent schedules of one run (checkpoints and operation admission) never
 * make the run conflict with itself. A conflict it still sees comes from another writer.
 *
 * @example
 * const run = await store.acquireRun('run-1', { owner: 'worker-a', leaseMs: 30_000 });
 * const owned = new OwnedRun(store, run);
 * await owned.recordRunOperation({ id: 'req-step-0', kind: 'model-request', phase: 'started', step: 0, startedAt });
 */
export class OwnedRun {
  readonly runId: string;
  readonly owner: string;
  readonly fencingToken: number;
  #run: AgentRun;
  #lost: FencingError | null = null;
  readonly #store: AgentRuntimeStore;
  readonly #queue: RunMutationQueue;
  readonly #terminalAttempts: number;

  constructor(store: AgentRuntimeStore, acquired: AgentRun, options: OwnedRunOptions = {}) {
    if (acquired.owner === null) throw new TypeError(`Run ${acquired.id} has no owner`);
    this.#store = store;
    this.#run = acquired;
    this.runId = acquired.id;
    this.owner = acquired.owner;
    this.fencingToken = acquired.fencingToken;
    this.#queue = options.queue ?? new RunMutationQueue();
    this.#terminalAttempts = options.terminalAttempts ?? 3;
  }

  /** The run as this owner last wrote it. */
  get run(): AgentRun {
    return this.#run;
  }

  /** The `FencingError` that ended this ownership, or null while the run is held. */
  get lost(): FencingError | null {
    return this.#lost;
  }

  recordRunOperation(operation: RunOperation): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.recordRunOperation(this.runId, guard, operation));
  }

  saveAssistantCheckpoint(message: UIMessage): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.saveAssistantCheckpoint(this.runId, guard, message));
  }

  /** Appends chunks to the assistant message, extending the write `append.baseRevision` names. */
  appendAssistant(append: AssistantAppend): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.appendAssistant(this.runId, guard, append));
  }

  /** Renews the lease without changing anything else (an idle owner's heartbeat). */
  renewLease(): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.renewLease(this.runId, guard));
  }

  /** Releases the lease (a run pausing for tool approvals: nobody's silence to detect). */
  releaseLease(): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.releaseLease(this.runId, guard));
  }

  /** Hands the lease off: it expires now (a graceful shutdown; recovery takes the run over). */
  handOffLease(): Promise<AgentRun> {
    return this.#mutate((guard) => this.#store.handOffLease(this.runId, guard));
  }

  /**
   * Ends the run. A lost revision race is retried against the run's current revision a
   * bounded number of times: the store recognises a repeated terminal as a duplicate.
   */
  commitTerminal(terminal: TerminalCommit): Promise<AgentRun> {
    return this.#mutate(async (guard) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.#store.commitTerminal(this.runId, guard, terminal);
        } catch (error) {
          if (!StoreConflictError.isInstance(error) || attempt >= this.#terminalAttempts)
            throw error;
          const current = await this.#store.getRun(this.runId);
          guard = { ...guard, expectedRevision: current.revision };
        }
      }
    });
  }

  /** Resolves when every mutation enqueued so far has settled. */
  settled(): Promise<void> {
    return this.#queue.settled(this.runId);
  }

  #mutate(
    write: (guard: {
      owner: string;
      fencingToken: number;
      expectedRevision: number;
    }) => Promise<AgentRun>,
  ): Promise<AgentRun> {
    return this.#queue.enqueue(this.runId, async () => {
      if (this.#lost) throw this.#lost;
      try {
        // Read inside the turn: the revision the predecessor produced.
        const guard = {
          owner: this.owner,
          fencingToken: this.fencingToken,
          expectedRevision: this.#run.revision,
        };
        this.#run = await write(guard);
        return this.#run;
      } catch (error) {
        if (FencingError.isInstance(error)) this.#lost = error;
        throw error;
      }
    });
  }
}
