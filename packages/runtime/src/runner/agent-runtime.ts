import type { AgentRun, UIMessage } from '@runlight/protocol';
import { generateId } from 'ai';
import { InvalidTransitionError } from '../errors/invalid-transition-error';
import { RuntimeClosedError } from '../errors/runtime-closed-error';
import { RunEventHub } from '../events/event-hub';
import type { RunEventBus } from '../events/run-event-bus';
import { redactingLog } from '../log/redact-error';
import { RunMutationQueue } from '../store/run-mutation-queue';
import { safeTelemetry } from '../telemetry/run-telemetry';
import {
  type AgentRuntime,
  type AgentRuntimeOptions,
  DEFAULT_LEASE_MS,
  defaultLog,
  defaultOwner,
  type RunHandle,
  refused,
} from './agent-runtime-types';
import { DEFAULT_CHECKPOINT_EVERY_EVENTS } from './checkpoints/checkpoint-boundary';
import {
  type AdoptionOutcome,
  type AdoptOptions,
  adoptOrphanedRequests,
} from './control/adopt-orphaned-requests';
import { applyControlRequest } from './control/apply-control-request';
import { createCancels } from './control/cancels';
import { startControlPump } from './control/control-pump';
import { createResume, type PreparedExecution } from './control/resume-paused-run';
import { type RecoveryOutcome, takeOverRun } from './control/take-over-run';
import { notifyFinish } from './lifecycle/notify-finish';
import { RuntimeShutdown } from './lifecycle/shutdown';
import { prepareStart } from './prepare-start';
import { RunExecution } from './run-execution';
import type { RunExecutionOptions } from './run-options';
import { toolErrorTextOf } from './tools/tool-error-text';
import { DEFAULT_MAX_TOOL_RESULT_BYTES, positiveLimit } from './tools/tool-result-limit';
import { publishingStore } from './writes/publishing-store';
import { resilientStore } from './writes/resilient-store';

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
  const owner = options.owner ?? defaultOwner();
  const checkpointEveryEvents = Math.max(
    1,
    Math.floor(options.checkpointEveryEvents ?? DEFAULT_CHECKPOINT_EVERY_EVENTS),
  );
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const bus: RunEventBus = options.events ?? new RunEventHub();
  const log = redactingLog(options.onLog ?? defaultLog, options.logRawErrors);
  const queue = new RunMutationQueue();
  const telemetry = safeTelemetry(options.telemetry, (runId, error) =>
    log({ level: 'warn', runId, message: 'The telemetry threw; the run goes on', error }),
  );
  const publishing = resilientStore(publishingStore(store, bus, telemetry), {
    store,
    bus,
    log,
    telemetry,
    retry: { budgetMs: leaseMs, ...options.storeRetry },
  });
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
    telemetry,
    toolErrorText: toolErrorTextOf(options.exposeToolErrors),
    maxToolResultBytes: positiveLimit(
      'maxToolResultBytes',
      options.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES,
    ),
  };

  /** Controllers of the executions of this process, registered before acquisition. */
  const controllers = new Map<string, AbortController>();
  /** The `done` of each execution of this process, while it runs. */
  const executions = new Map<string, Promise<AgentRun>>();
  /** What a paused run needs to resume in this process without the caller repeating it. */
  const paused = new Map<string, RunExecutionOptions>();
  /** Controllers aborted by a cancel (`cancelRun` or the caller's signal), not by a failure. */
  const cancelRequested = new WeakSet<AbortController>();
  /** Runs whose execution here is past its `prepare`: the runs whose requests it applies. */
  const executing = new Set<string>();
  /** `close()`: refuses new executions, hands off the leases of the running ones. */
  const shutdown = new RuntimeShutdown({ owner, publishing, controllers, executions, log });

  const { cancelIdle, cancelHere, cancelAndSettle } = createCancels({
    publishing,
    owner,
    leaseMs,
    queue,
    bus,
    log,
    controllers,
    executions,
    paused,
    cancelRequested,
  });

  /** Exported as `resumeRun` (see `createResume`). */
  const resume = createResume({
    publishing,
    closed: () => shutdown.closed,
    executions,
    paused,
    launch: (runId, options, prepare) => launch(runId, options, prepare),
  });

  // Durable cancels and approval answers recorded by any process, for the runs executed (or
  // kept paused) here: claimed once, then applied (see `startControlPump`).
  const requests = store.controlRequests;
  const targets = { cancel: cancelAndSettle, resume, log };
  const pump = requests
    ? startControlPump({
        requests,
        runs: () => new Set([...executing, ...paused.keys()]),
        apply: (request) => applyControlRequest(request, targets),
        log,
        pollMs: options.controlPollMs,
        staleClaimMs: leaseMs,
      })
    : undefined;
  // Another process recorded a request (the bus carries the word; the pump reads the store).
  const unhear = pump && bus.onControlRequest?.(() => pump.wake());

  /** Exported as `adoptOrphanedRequests`. */
  function adopt(adoptOptions: AdoptOptions): Promise<AdoptionOutcome[]> {
    if (!pump || shutdown.closed) return Promise.resolve([]);
    const track = pump.track;
    return adoptOrphanedRequests({ ...deps, owner, paused, targets, track }, adoptOptions);
  }

  /**
   * Runs one execution of `runId` in this process. `prepare` runs first (registered, so a
   * cancel reaches it); it may acquire the run itself (`acquired`, with the `execution` it
   * resolved — recovery) or end without executing (`settled`).
   */
  function launch(
    runId: string,
    options: RunExecutionOptions | undefined,
    prepare: () => Promise<PreparedExecution>,
  ): RunHandle {
    if (shutdown.closed) return refused(new RuntimeClosedError(runId));
    if (controllers.has(runId)) {
      return refused(
        new InvalidTransitionError(runId, 'run-exists', 'the run is already executing here'),
      );
    }
    const controller = new AbortController();
    const external = options?.abortSignal;
    const onExternalAbort = () => {
      cancelRequested.add(controller);
      controller.abort(external?.reason ?? 'cancelled');
    };
    if (external?.aborted) onExternalAbort();
    else external?.addEventListener('abort', onExternalAbort, { once: true });
    controllers.set(runId, controller);

    let admitted!: (run: Promise<AgentRun>) => void;
    const created = new Promise<AgentRun>((resolve) => {
      admitted = resolve;
    });
    created.catch(() => {});
    /** False while `prepare` may still refuse: a refused start leaves the run's channel be. */
    let began = false;
    const done = (async () => {
      try {
        const prepared = await prepare().catch((error: unknown) => {
          admitted(Promise.reject(error));
          throw error;
        });
        began = true;
        // A snapshot read (not getRun): hosts and tests hook getRun for the tool fence.
        admitted(store.getSnapshot(runId).then((snapshot) => snapshot.run));
        if ('settled' in prepared) return prepared.settled;
        // Its requests are this process's from now on — not while `prepare` decides: a takeover
        // may yet find the run paused (then nobody here keeps it, and recovery adopts them). A
        // request recorded before this execution began (a cancel of a queued run) applies.
        executing.add(runId);
        pump?.wake();
        const execution = prepared.execution ?? (options as RunExecutionOptions);
        const acquired =
          prepared.acquired ?? (await publishing.acquireRun(runId, { owner, leaseMs }));
        const snapshot = await publishing.getSnapshot(runId);
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
        // Paused is what this execution did (it stopped for approvals), never a guess from the
        // run's owner name or an aborted controller (every failure aborts it too).
        const pausedHere = run.pausedForApproval;
        if (pausedHere && cancelRequested.has(controller)) {
          // Cancelled while it was pausing: the pause must not swallow the cancel.
          await cancelIdle(runId);
          return await notifyFinish(execution, await publishing.getRun(runId), deps);
        }
        // The caller's abort signal belonged to this execution, not to a later resume.
        if (pausedHere) paused.set(runId, { ...execution, abortSignal: undefined });
        else paused.delete(runId);
        return await notifyFinish(execution, result, deps);
      } finally {
        external?.removeEventListener('abort', onExternalAbort);
        controllers.delete(runId);
        executing.delete(runId);
        executions.delete(runId);
        if (began) bus.endRun(runId);
      }
    })();
    // Callers may await only `created` (a route answering once the run exists): a refused
    // execution must not become an unhandled rejection. Awaiting `done` still rejects.
    done.catch(() => {});
    executions.set(runId, done);
    return { done, created };
  }

  return {
    subscribe: (runId, listener) => bus.subscribe(runId, listener),
    liveDeltas: (runId) => bus.liveDeltas(runId),
    // A bus across processes may go deaf; the SSE handlers serving this runtime must know.
    health: () => bus.health?.() ?? 'live',

    startRun({ runId, conversation, ...execution }) {
      return launch(runId, execution, async () => {
        const acquired = await prepareStart(
          { publishing, store, owner, leaseMs, log, telemetry },
          runId,
          conversation,
        );
        return { resumed: false, messages: execution.messages, ...(acquired ? { acquired } : {}) };
      });
    },

    resumeRun(options) {
      return resume(options);
    },

    recoverRun(options) {
      let settle!: (outcome: RecoveryOutcome) => void;
      const outcome = new Promise<RecoveryOutcome>((resolve) => {
        settle = resolve;
      });
      if (controllers.has(options.runId)) {
        const skipped: RecoveryOutcome = {
          runId: options.runId,
          result: 'skipped',
          reason: 'executing-here',
        };
        return { outcome: Promise.resolve(skipped), done: store.getRun(options.runId) };
      }
      const handle = launch(options.runId, undefined, async () => {
        const takeover = await takeOverRun({ ...deps, owner }, options);
        settle(takeover.outcome);
        if (takeover.kind === 'settled') return { settled: takeover.run };
        return {
          resumed: false,
          ...(takeover.message ? { message: takeover.message } : {}),
          acquired: takeover.acquired,
          execution: takeover.execution,
          messages: takeover.messages,
        };
      });
      // A takeover that failed before deciding (e.g. the store is unreachable) rejects both.
      const decided = Promise.race([outcome, handle.done.then(() => outcome)]);
      // A run it found pausing (its owner died before releasing it) is nobody's now: an answer
      // or cancel recorded before or while it decided is applied here at once, the way
      // recovery adopts a paused run's requests (a later one, on recovery's next poll).
      const done = handle.done.then(async (run) => {
        if ((await decided).result === 'paused') {
          await adopt({ resolveRun: options.resolveRun, runIds: [run.id], adoptAfterMs: 0 }).catch(
            (error: unknown) =>
              log({
                level: 'warn',
                runId: run.id,
                message: 'Its requests wait for recovery',
                error,
              }),
          );
        }
        return run;
      });
      done.catch(() => {});
      return { outcome: decided, done };
    },

    adoptOrphanedRequests: adopt,

    // The control pump serves cancels until the last run is handed off, then stops polling.
    close: (options) =>
      shutdown.close(options).finally(() => {
        pump?.stop();
        unhear?.();
      }),

    cancelRun: cancelHere,
  };
}

export type { AgentRuntime, AgentRuntimeOptions, RunHandle } from './agent-runtime-types';
