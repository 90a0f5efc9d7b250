import {
  type AgentRun,
  isTerminalPhase,
  isTerminalStatus,
  type UIMessage,
} from '@runlight/protocol';
import { convertToModelMessages, generateId } from 'ai';
import { InvalidTransitionError } from '../errors/invalid-transition-error';
import { RunEventHub, type RunEventSource } from '../events/event-hub';
import type { RunEventBus } from '../events/run-event-bus';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import { OwnedRun } from '../store/owned-run';
import { RunMutationQueue } from '../store/run-mutation-queue';
import { DEFAULT_CHECKPOINT_EVERY_EVENTS } from './checkpoint-boundary';
import { publishingStore } from './publishing-store';
import { RunExecution } from './run-execution';
import type {
  ResumeRunOptions,
  RunExecutionOptions,
  RuntimeLogEntry,
  StartRunOptions,
  ToolApprovalAnswer,
} from './run-options';

export interface AgentRuntimeOptions {
  store: AgentRuntimeStore;
  /** This process's owner name in leases. Default `runtime-<random>`. */
  owner?: string;
  /** Ordinary chunks per batched checkpoint. Default 32 (`DEFAULT_CHECKPOINT_EVERY_EVENTS`). */
  checkpointEveryEvents?: number;
  /**
   * Opt-in write bound for long answers (off by default: the ADR's cadence alone). When set,
   * an ordinary batch is checkpointed only once the message also grew by this fraction since
   * the last checkpoint, so the bytes of all checkpoints stay within `(1 + g) / g` × the final
   * message (3× at 0.5) however long the answer; structural boundaries still checkpoint at once.
   * The price: late in a long answer a crash loses more text and a reconnect replays more
   * deltas from memory.
   */
  checkpointMinGrowth?: number;
  /** Lease length; renewed by every write and by a heartbeat while idle. Default 30 s. */
  leaseMs?: number;
  /** Where events are published. Default a new in-process `RunEventHub`. */
  events?: RunEventBus;
  /** The server log — the only place provider error text goes. Default `console.error`. */
  onLog?: (entry: RuntimeLogEntry) => void;
}

/** A handle on a run started or resumed in this process. */
export interface RunHandle {
  /**
   * The run when its local execution ended: completed, failed (a result, never a rejection),
   * cancelled, still `running` while it awaits approvals, or as the new owner left it after a
   * lost lease. Rejects only when the run could not be created or acquired.
   */
  done: Promise<AgentRun>;
  /**
   * The run once it exists in the store and this execution was admitted (`startRun`: created
   * or found; `resumeRun`: the approvals matched the paused message). Await it before handing
   * the run id to a client: a store that answers on a later tick would otherwise let the
   * client's first snapshot request arrive before the run exists. Rejects when the run could
   * not be created or the execution was refused (e.g. already executing, nothing to resume).
   *
   * @example
   * const handle = runtime.startRun({ runId, model, messages });
   * await handle.created;
   * return Response.json({ runId }, { status: 201 });
   */
  created: Promise<AgentRun>;
}

/** A handle whose execution was refused before it began. */
function refused(error: unknown): RunHandle {
  const done = Promise.reject(error);
  const created = Promise.reject(error);
  // Callers may await only one of the two; the other must not be an unhandled rejection.
  created.catch(() => {});
  return { done, created };
}

export interface AgentRuntime extends RunEventSource {
  startRun(options: StartRunOptions): RunHandle;
  resumeRun(options: ResumeRunOptions): RunHandle;
  /**
   * Aborts the run's local execution; its operation and the run end `cancelled`. A run this
   * process is not executing (e.g. one awaiting approval) is acquired and ended `cancelled`,
   * unless another owner's lease holds it (then the attempt is logged).
   */
  cancelRun(runId: string): void;
}

const DEFAULT_LEASE_MS = 30_000;

const defaultLog = (entry: RuntimeLogEntry) => {
  console.error(`[runlight] ${entry.level} run ${entry.runId}: ${entry.message}`, entry.error);
};

/** The tool parts of `message` with the user's answers applied, as the AI SDK UI does. */
function answerApprovals(message: UIMessage, approvals: readonly ToolApprovalAnswer[]): UIMessage {
  const pending = new Map(approvals.map((answer) => [answer.approvalId, answer]));
  const parts = message.parts.map((part) => {
    if (!('state' in part) || part.state !== 'approval-requested' || !('approval' in part)) {
      return part;
    }
    const answer = pending.get(part.approval.id);
    if (!answer) return part;
    pending.delete(answer.approvalId);
    const approval = { id: answer.approvalId, approved: answer.approved, reason: answer.reason };
    return { ...part, state: 'approval-responded', approval } as unknown as typeof part;
  });
  if (pending.size > 0) {
    throw new TypeError(
      `Run has no pending approval request ${[...pending.keys()].join(', ')} in its assistant message`,
    );
  }
  return { ...message, parts };
}

/**
 * Creates the runtime that executes agent runs with the AI SDK and records them as durable
 * run facts (ADR 0174): model-request and compaction operations, assistant checkpoints at
 * batched and structural boundaries, and the terminal status — each published as an event
 * after it committed, with every live delta published individually in between.
 *
 * @example
 * const store = createAgentRuntimeStore(createMemoryDriver());
 * const runtime = createAgentRuntime({ store });
 * const unsubscribe = runtime.subscribe('run-1', (event) => console.log(event.type));
 * const run = await runtime.startRun({ runId: 'run-1', model, messages: [{ role: 'user', content: 'Hi' }] }).done;
 * run.status; // 'completed'
 */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const { store } = options;
  const owner = options.owner ?? `runtime-${generateId()}`;
  const checkpointEveryEvents = Math.max(
    1,
    Math.floor(options.checkpointEveryEvents ?? DEFAULT_CHECKPOINT_EVERY_EVENTS),
  );
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const bus = options.events ?? new RunEventHub();
  const log = options.onLog ?? defaultLog;
  const queue = new RunMutationQueue();
  const publishing = publishingStore(store, bus);
  const checkpointMinGrowth = options.checkpointMinGrowth;
  const deps = {
    store,
    publishing,
    bus,
    queue,
    checkpointEveryEvents,
    checkpointMinGrowth,
    leaseMs,
    log,
  };

  /** Controllers of the executions of this process, registered before acquisition. */
  const controllers = new Map<string, AbortController>();
  /** The `done` of each execution of this process, while it runs. */
  const executions = new Map<string, Promise<AgentRun>>();
  /** What a paused run needs to resume in this process without the caller repeating it. */
  const paused = new Map<string, RunExecutionOptions>();

  async function createIfMissing(runId: string): Promise<void> {
    try {
      await publishing.createRun({ runId });
    } catch (error) {
      if (!(InvalidTransitionError.isInstance(error) && error.rule === 'run-exists')) throw error;
    }
  }

  /** Cancels a run no execution of this process is running: acquire, end, commit. */
  async function cancelIdle(runId: string): Promise<void> {
    const run = await store.getRun(runId);
    if (isTerminalStatus(run.status)) return;
    const acquired = await publishing.acquireRun(runId, { owner, leaseMs });
    const owned = new OwnedRun(publishing, acquired, { queue });
    const current = acquired.lastOperation;
    if (current && !isTerminalPhase(current.phase)) {
      await owned.recordRunOperation({
        ...current,
        phase: 'cancelled',
        endedAt: new Date().toISOString(),
      });
    }
    await owned.commitTerminal({ status: 'cancelled' });
    paused.delete(runId);
    bus.endRun(runId);
  }

  /** Exported as `resumeRun`. */
  function resume({ runId, approvals, ...overrides }: ResumeRunOptions): RunHandle {
    // The approval request is committed a moment before the paused execution returns: a
    // resume that arrives meanwhile waits for it instead of being refused.
    const previous = executions.get(runId);
    if (previous) {
      const next = previous.then(
        () => resume({ runId, approvals, ...overrides }),
        () => resume({ runId, approvals, ...overrides }),
      );
      const created = next.then((handle) => handle.created);
      created.catch(() => {});
      return { done: next.then((handle) => handle.done), created };
    }
    const remembered = paused.get(runId);
    const defined = Object.fromEntries(
      Object.entries(overrides).filter(([, value]) => value !== undefined),
    ) as Partial<RunExecutionOptions>;
    const merged = { ...remembered, ...defined } as Partial<RunExecutionOptions>;
    if (merged.model === undefined || merged.messages === undefined) {
      const error = new TypeError(
        `Run ${runId} is not paused in this process: pass model and messages to resumeRun`,
      );
      return refused(error);
    }
    const execution = merged as RunExecutionOptions;
    return launch(runId, execution, async () => {
      const snapshot = await store.getSnapshot(runId);
      const assistant = snapshot.assistant?.message;
      if (!assistant) throw new TypeError(`Run ${runId} has no assistant message to resume`);
      const answered = answerApprovals(assistant, approvals);
      // The model sees its earlier steps and the answers as the AI SDK UI would send them.
      const continued = await convertToModelMessages([answered], { tools: execution.tools });
      return {
        message: answered,
        resumed: true,
        messages: [...execution.messages, ...continued],
      };
    });
  }

  function launch(
    runId: string,
    execution: RunExecutionOptions,
    prepare: () => Promise<{
      message?: UIMessage;
      resumed: boolean;
      messages: RunExecutionOptions['messages'];
    }>,
  ): RunHandle {
    if (controllers.has(runId)) {
      return refused(new Error(`Run ${runId} is already executing here`));
    }
    const controller = new AbortController();
    const external = execution.abortSignal;
    const onExternalAbort = () => controller.abort(external?.reason ?? 'cancelled');
    if (external?.aborted) onExternalAbort();
    else external?.addEventListener('abort', onExternalAbort, { once: true });
    controllers.set(runId, controller);

    let admitted!: (run: Promise<AgentRun>) => void;
    const created = new Promise<AgentRun>((resolve) => {
      admitted = resolve;
    });
    created.catch(() => {});
    const done = (async () => {
      try {
        const prepared = await prepare().catch((error: unknown) => {
          admitted(Promise.reject(error));
          throw error;
        });
        admitted(store.getRun(runId));
        const acquired = await publishing.acquireRun(runId, { owner, leaseMs });
        const snapshot = await store.getSnapshot(runId);
        const message: UIMessage = prepared.message ??
          snapshot.assistant?.message ?? { id: generateId(), role: 'assistant', parts: [] };
        const run = new RunExecution(deps, acquired, {
          message,
          baseRevision: snapshot.assistant?.revision ?? 0,
          controller,
        });
        const result = await run.execute(
          { ...execution, messages: prepared.messages },
          { approvalCheckpoint: prepared.resumed },
        );
        const pausedHere = result.status === 'running' && result.owner === owner;
        if (pausedHere && controller.signal.aborted) {
          // Cancelled while it was pausing: the pause must not swallow the cancel.
          await cancelIdle(runId);
          return await store.getRun(runId);
        }
        // The caller's abort signal belonged to this execution, not to a later resume.
        if (pausedHere) paused.set(runId, { ...execution, abortSignal: undefined });
        else paused.delete(runId);
        return result;
      } finally {
        external?.removeEventListener('abort', onExternalAbort);
        controllers.delete(runId);
        executions.delete(runId);
        bus.endRun(runId);
      }
    })();
    executions.set(runId, done);
    return { done, created };
  }

  return {
    subscribe: (runId, listener) => bus.subscribe(runId, listener),
    liveDeltas: (runId) => bus.liveDeltas(runId),

    startRun({ runId, ...execution }) {
      return launch(runId, execution, async () => {
        await createIfMissing(runId);
        return { resumed: false, messages: execution.messages };
      });
    },

    resumeRun(options) {
      return resume(options);
    },

    cancelRun(runId) {
      const controller = controllers.get(runId);
      if (controller) {
        controller.abort('cancelled');
        return;
      }
      // Not executing here (e.g. awaiting approval): end it if no live owner holds it.
      void cancelIdle(runId).catch((error) =>
        log({ level: 'warn', message: 'The run could not be cancelled', runId, error }),
      );
    },
  };
}
