import { type AgentRun, isTerminalPhase, isTerminalStatus } from '@runlight/protocol';
import {
  generateId,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  wrapLanguageModel,
} from 'ai';
import { FencingError } from '../errors/fencing-error';
import { OwnedRun } from '../store/owned-run';
import { ModelRequestAdmission } from './admission/model-request-admission';
import { observeSdkParts, onStreamBreak } from './admission/model-request-observers';
import { StepSequence } from './admission/step-sequence';
import { closeAbandonedParts } from './checkpoints/abandoned-message';
import { CheckpointWriter } from './checkpoints/checkpoint-writer';
import { consumeChunks } from './checkpoints/consume-chunks';
import { continueTextPart, reopenContinuedText } from './checkpoints/continued-text';
import { runCompaction } from './compaction/run-compaction';
import {
  type ExecutionContext,
  type ExecutionModel,
  executionLog,
  type RunExecutionDeps,
} from './execution-context';
import { currentRun, endExecution } from './lifecycle/execution-end';
import { ExecutionStop, RunStoppedError } from './lifecycle/execution-stop';
import { renewLeaseOf, startLeaseHeartbeat } from './lifecycle/lease-heartbeat';
import { OperationRecorder } from './lifecycle/operation-recorder';
import { ownStopWhen } from './lifecycle/own-stop-when';
import { MODEL_CALL_OPTION_KEYS, type RunExecutionOptions } from './run-options';
import { fenceTools } from './tools/managed-tools';
import { mapToolErrors } from './tools/tool-error-text';

export type { RunExecutionDeps } from './execution-context';

/** The options of `MODEL_CALL_OPTION_KEYS` the run was given, for `streamText` as they are. */
function modelCallOptionsOf(options: RunExecutionOptions) {
  return Object.fromEntries(
    MODEL_CALL_OPTION_KEYS.flatMap((key) =>
      options[key] === undefined ? [] : [[key, options[key]]],
    ),
  ) as Pick<RunExecutionOptions, (typeof MODEL_CALL_OPTION_KEYS)[number]>;
}

/** The text a client sees for any stream error; the real text goes to the log hook only. */
export const GENERIC_ERROR_TEXT = 'The model provider failed.';

/**
 * One local execution of an acquired run: one `streamText` call whose every owned mutation
 * goes through one `OwnedRun` (the per-run queue). It records model-request and compaction
 * operations, batches assistant checkpoints, publishes every live delta, and ends the run
 * through `commitTerminal` — or leaves it `running` while it awaits tool approvals.
 *
 * The parts: `ModelRequestAdmission` (and its stream observers) and `runCompaction` record
 * operations through the `OperationRecorder`; `consumeChunks` publishes deltas and checkpoints
 * through the `CheckpointWriter`; `StepSequence` orders each step's admission after the
 * previous step's checkpoint; `ExecutionStop` names failures; `endExecution` ends the run.
 *
 * @example
 * const execution = new RunExecution(deps, acquired, { message, baseRevision, controller });
 * const run = await execution.execute(options, { approvalCheckpoint: false });
 */
export class RunExecution {
  readonly runId: string;
  readonly #context: ExecutionContext;
  readonly #stop: ExecutionStop;
  readonly #recorder: OperationRecorder;
  readonly #steps: StepSequence;
  readonly #writer: CheckpointWriter;
  /** The assistant write the execution starts on, and the revision of its acquisition. */
  readonly #startBase: number;
  /** The provider and model this execution's log entries name (set by `execute`). */
  readonly #model: ExecutionModel = {};
  readonly #acquiredRevision: number;
  /** The execution continues the stored message's last text part (`continued-text.ts`). */
  readonly #continuesText: boolean;

  constructor(
    deps: RunExecutionDeps,
    acquired: AgentRun,
    start: { message: UIMessage; baseRevision: number; controller: AbortController },
  ) {
    this.runId = acquired.id;
    const log = executionLog(deps.log, acquired.id, this.#model);
    this.#stop = new ExecutionStop(start.controller, log);
    this.#context = {
      runId: acquired.id,
      deps,
      controller: start.controller,
      owned: new OwnedRun(deps.publishing, acquired, { queue: deps.queue }),
      lastWriteAt: performance.now(),
      executionId: generateId(),
      callId: undefined,
      stop: this.#stop,
      log,
      pausedForApproval: false,
    };
    // A previous owner that died mid-operation left its streaming parts open: close them.
    const abandoned = acquired.lastOperation && !isTerminalPhase(acquired.lastOperation.phase);
    const message = abandoned ? closeAbandonedParts(start.message) : start.message;
    // A takeover (a hand-off's or a crash's) continues the text part it was writing.
    const continued = acquired.fencingToken > 1 ? reopenContinuedText(message) : null;
    this.#continuesText = continued !== null;
    this.#writer = new CheckpointWriter(this.#context, continued ?? message, start.baseRevision, {
      continuesText: this.#continuesText,
    });
    this.#startBase = start.baseRevision;
    this.#acquiredRevision = acquired.revision;
    this.#recorder = new OperationRecorder(this.#context, acquired.lastOperation);
    this.#steps = new StepSequence(acquired.lastOperation, this.#stop);
  }

  /** Executes the run to its end (or its approval pause) and returns the run as stored. */
  async execute(
    options: RunExecutionOptions,
    resumed: { approvalCheckpoint: boolean },
  ): Promise<AgentRun> {
    const context = this.#context;
    const { modelId, provider } = describeModel(options.model);
    this.#model.model = modelId;
    if (provider !== undefined) this.#model.provider = provider;
    const heartbeat = startLeaseHeartbeat(context.deps.leaseMs, {
      lastWriteAt: () => context.lastWriteAt,
      stopped: () => this.#stop.stopped(),
      renew: () => void renewLeaseOf(context),
    });
    try {
      // A previous owner that died mid-operation never ended it, and no new operation may start
      // before it ends: the new owner records it failed (no error text — none is known).
      const abandoned = this.#recorder.current;
      if (abandoned && !isTerminalPhase(abandoned.phase)) {
        await this.#recorder.endOperation(abandoned.id, 'failed');
      }
      // Every execution but a run's first (fencing token 1) writes its message before its
      // first delta: a takeover's deltas are then numbered on its own write, never on the dead
      // owner's last one (whose unwritten deltas the watchers still hold). A resume writes its
      // answered approvals the same way. So does one whose start base is newer than its own
      // acquisition: the message was read after another owner took the run over and wrote, so
      // its deltas would sit on that owner's write (glued text); the write is refused (fencing)
      // and the execution stops before its first delta.
      if (
        resumed.approvalCheckpoint ||
        context.owned.fencingToken > 1 ||
        this.#startBase > this.#acquiredRevision
      ) {
        await this.#writer.rebase();
      }
      if (!this.#stop.stopped()) await this.#stream(options);
    } catch (error) {
      // E.g. `streamText` throws synchronously for an unknown model id: a run failure, named
      // `internal` (the configuration, not the provider), and still a result, never a throw.
      context.log('error', 'The run could not be executed', error);
      this.#stop.fail('internal');
    }
    try {
      return await endExecution(context, this.#recorder, this.#writer);
    } catch (error) {
      context.log('error', 'The run could not be ended', error);
      return currentRun(context);
    } finally {
      clearInterval(heartbeat);
      this.#writer.close();
    }
  }

  /** True when this execution ended by pausing for tool approvals (the run stays `running`). */
  get pausedForApproval(): boolean {
    return this.#context.pausedForApproval;
  }

  cancel(reason: unknown = 'cancelled'): void {
    this.#context.controller.abort(reason);
  }

  // ── the AI SDK call ──────────────────────────────────────────────────────────────────

  async #stream(options: RunExecutionOptions): Promise<void> {
    const context = this.#context;
    const stop = this.#stop;
    const stringModel = typeof options.model === 'string';
    const admission = new ModelRequestAdmission(context, this.#steps, this.#recorder, {
      tools: options.tools,
      maxRetries: options.maxRetries,
    });
    const model = stringModel
      ? options.model
      : wrapLanguageModel({
          model: options.model as Exclude<typeof options.model, string>,
          middleware: admission.middleware(),
        });
    const tools = options.tools
      ? fenceTools(
          options.tools,
          this.runId,
          () => this.#assertHeld(),
          () => this.#modelStreamFinished(),
          this.#context.deps.maxToolResultBytes,
        )
      : undefined;

    const telemetry = context.deps.telemetry;
    telemetry?.describeExecution(this.runId, describeModel(options.model));
    const call = () =>
      streamText({
        ...modelCallOptionsOf(options),
        model,
        messages: options.messages,
        tools: tools as ToolSet,
        toolApproval: options.toolApproval,
        stopWhen: ownStopWhen(options.stopWhen as Parameters<typeof ownStopWhen>[0], stop, context),
        instructions: options.system,
        maxRetries: options.maxRetries,
        abortSignal: context.controller.signal,
        // The SDK's default prints provider errors to the console; they reach the log hook
        // through the stream's error parts instead.
        onError: () => {},
        onStart: (event) => {
          // Only the call id is read here: the SDK swallows callback errors, so no admission.
          context.callId = event.callId;
        },
        prepareStep: async ({ stepNumber, messages }) => {
          this.#steps.sdkStep = stepNumber;
          const step = this.#steps.offset + stepNumber;
          await this.#steps.previousStepCommitted(stepNumber);
          let prepared: { messages: typeof messages } | undefined;
          if (options.compact) {
            const compacted = await runCompaction(
              context,
              this.#recorder,
              options.compact,
              messages,
              step,
            );
            if (compacted) prepared = { messages: compacted };
          }
          // A model id is resolved by the SDK and cannot be wrapped: admit it here (awaited).
          if (stringModel) await admission.admitModelId(step, stepNumber);
          return prepared;
        },
      });
    // The AI SDK's own spans (`experimental_telemetry`) nest under the run's span.
    const result = telemetry ? telemetry.withRun(this.runId, call) : call();

    const chunks = toUIMessageStream({
      // One stage for both: the SDK's failures observed, tool errors mapped.
      stream: observeSdkParts(
        result.stream,
        this.#recorder,
        stop,
        stringModel,
        mapToolErrors(context.deps.toolErrorText),
      ),
      tools: tools as ToolSet,
      generateMessageId: () => this.#writer.messageId,
      sendReasoning: true,
      // Provider text never leaves the server; tool errors were mapped above (redacted unless
      // the application exposes them), so the UI chunks carry that text as it is.
      onError: () => GENERIC_ERROR_TEXT,
      redactToolErrors: false,
    });

    const continued = this.#continuesText ? chunks.pipeThrough(continueTextPart()) : chunks;
    await consumeChunks(context, continued, this.#writer, this.#steps, (error) =>
      onStreamBreak(error, this.#recorder, stop),
    );
  }

  /**
   * A tool executes only once the model's stream finished (the SDK starts tools at the end of
   * the model call), so its request is over: a concrete model's ended at the provider's
   * `finish`; a model id's (no middleware) ends here — with first output first, since a tool
   * that executes was a complete parsed tool call. A UI then shows "working" during a slow tool.
   */
  async #modelStreamFinished(): Promise<void> {
    const current = this.#recorder.current;
    if (current?.kind !== 'model-request' || isTerminalPhase(current.phase)) return;
    await this.#recorder.firstOutput(current.id);
    await this.#recorder.endOperation(current.id, 'completed');
  }

  // ── the managed tool fence ───────────────────────────────────────────────────────────

  /** Checks against the store that this runtime still holds the run (before and after a tool). */
  async #assertHeld(): Promise<void> {
    if (this.#stop.lost) throw new RunStoppedError('ownership lost');
    const run = await this.#context.deps.publishing.getRun(this.runId);
    const owned = this.#context.owned;
    if (
      run.owner !== owned.owner ||
      run.fencingToken !== owned.fencingToken ||
      isTerminalStatus(run.status)
    ) {
      this.#stop.loseOwnership();
      throw this.#stop.own(
        new FencingError(
          this.runId,
          run.owner !== owned.owner ? 'owner-mismatch' : 'stale-fencing-token',
          {
            owner: owned.owner,
            fencingToken: owned.fencingToken,
            currentOwner: run.owner,
            currentFencingToken: run.fencingToken,
          },
        ),
      );
    }
  }
}

/** The model as the telemetry names it: the id and, for a model object, its provider. */
function describeModel(model: RunExecutionOptions['model']): {
  modelId: string;
  provider?: string;
} {
  if (typeof model === 'string') return { modelId: model };
  const { modelId, provider } = model as { modelId: string; provider?: string };
  return provider === undefined ? { modelId } : { modelId, provider };
}
