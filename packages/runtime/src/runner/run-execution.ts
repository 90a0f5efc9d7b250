import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  type AgentRun,
  type FailureCode,
  isTerminalPhase,
  isTerminalStatus,
  type RunFailure,
  type RunOperation,
} from '@runlight/protocol';
import {
  generateId,
  type LanguageModelMiddleware,
  type ModelMessage,
  streamText,
  type TextStreamPart,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  wrapLanguageModel,
} from 'ai';
import { FencingError } from '../errors/fencing-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import type { RunEventBus } from '../events/run-event-bus';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import { OwnedRun } from '../store/owned-run';
import type { RunMutationQueue } from '../store/run-mutation-queue';
import { AssistantAssembler } from './assistant-assembler';
import { isStructuralChunk } from './checkpoint-boundary';
import { isFirstOutput, isFirstSdkOutput } from './first-output';
import { fenceTools } from './managed-tools';
import type { RunExecutionOptions, RuntimeLogEntry } from './run-options';

/** The text a client sees for any stream error; the real text goes to the log hook only. */
export const GENERIC_ERROR_TEXT = 'The model provider failed.';

export interface RunExecutionDeps {
  /** The raw store (reads, ownership checks). */
  store: AgentRuntimeStore;
  /** The store whose mutations publish their durable events. */
  publishing: AgentRuntimeStore;
  bus: RunEventBus;
  queue: RunMutationQueue;
  checkpointEveryEvents: number;
  /** Opt-in: an ordinary batch also waits until the message grew by this fraction. */
  checkpointMinGrowth: number | undefined;
  leaseMs: number;
  log: (entry: RuntimeLogEntry) => void;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const now = () => new Date().toISOString();

/** Thrown into the SDK when the run must not go on (its failure is already recorded). */
class RunStoppedError extends Error {
  override readonly name = 'RunStoppedError';
}

/**
 * One local execution of an acquired run: one `streamText` call whose every owned mutation
 * goes through one `OwnedRun` (the per-run queue). It records model-request and compaction
 * operations, batches assistant checkpoints, publishes every live delta, and ends the run
 * through `commitTerminal` — or leaves it `running` while it awaits tool approvals.
 *
 * Step bookkeeping: `prepareStep` (awaited, once per step, before middleware) sets the SDK's
 * step; the run's step adds `stepOffset` (a resumed run continues the count). The consumer
 * loop resolves `#stepFinished[k]` once step k's finish-step checkpoint committed; the next
 * step's compaction and admission wait for it.
 */
export class RunExecution {
  readonly runId: string;
  readonly #deps: RunExecutionDeps;
  readonly #controller: AbortController;
  #owned: OwnedRun;
  readonly #assembler: AssistantAssembler;
  readonly #stepOffset: number;
  readonly #stepFinished: Deferred[] = [];
  readonly #attempts = new Map<number, number>();
  readonly #ownErrors = new WeakSet<object>();
  readonly #executionId = generateId();
  #callId: string | undefined;
  #sdkStep = 0;
  #operation: RunOperation | null;
  #failure: RunFailure | null = null;
  #lost = false;
  #writesBroken = false;
  #baseRevision: number;
  #seq = 0;
  #pending = 0;
  /** Approximate bytes the pending chunks add, and the size of the last checkpoint. */
  #pendingBytes = 0;
  #pendingChanges = 0;
  #checkpointBytes = 0;
  #lastMessage: UIMessage;
  #checkpointTail: Promise<void> = Promise.resolve();
  #lastWriteAt = performance.now();
  #onAbort: Promise<void> | undefined;

  constructor(
    deps: RunExecutionDeps,
    acquired: AgentRun,
    start: { message: UIMessage; baseRevision: number; controller: AbortController },
  ) {
    this.runId = acquired.id;
    this.#deps = deps;
    this.#controller = start.controller;
    this.#owned = new OwnedRun(deps.publishing, acquired, { queue: deps.queue });
    this.#assembler = new AssistantAssembler(start.message);
    this.#lastMessage = start.message;
    this.#baseRevision = start.baseRevision;
    this.#operation = acquired.lastOperation;
    const lastStep = acquired.lastOperation?.step;
    this.#stepOffset = lastStep === undefined ? 0 : lastStep + 1;
  }

  /** Executes the run to its end (or its approval pause) and returns the run as stored. */
  async execute(
    options: RunExecutionOptions,
    resumed: { approvalCheckpoint: boolean },
  ): Promise<AgentRun> {
    const heartbeat = this.#startHeartbeat();
    try {
      // A previous owner that died mid-operation never ended it, and no new operation may start
      // before it ends: the new owner records it failed (no error text — none is known).
      const abandoned = this.#operation;
      if (abandoned && !isTerminalPhase(abandoned.phase)) {
        await this.#endOperation(abandoned.id, 'failed');
      }
      if (resumed.approvalCheckpoint) await this.#exclusiveCheckpoint('always');
      if (!this.#stopped()) await this.#stream(options);
    } catch (error) {
      // E.g. `streamText` throws synchronously for an unknown model id: a run failure, named
      // `internal` (the configuration, not the provider), and still a result, never a throw.
      this.#log('error', 'The run could not be executed', error);
      this.#fail('internal');
    }
    try {
      return await this.#finish();
    } catch (error) {
      this.#log('error', 'The run could not be ended', error);
      return this.#currentRun();
    } finally {
      clearInterval(heartbeat);
      this.#assembler.close();
    }
  }

  cancel(reason: unknown = 'cancelled'): void {
    this.#controller.abort(reason);
  }

  // ── the AI SDK call ──────────────────────────────────────────────────────────────────

  async #stream(options: RunExecutionOptions): Promise<void> {
    const stringModel = typeof options.model === 'string';
    const model = stringModel
      ? options.model
      : wrapLanguageModel({
          model: options.model as Exclude<typeof options.model, string>,
          middleware: this.#middleware(),
        });
    const tools = options.tools
      ? fenceTools(options.tools, this.runId, () => this.#assertHeld())
      : undefined;

    const result = streamText({
      model,
      messages: options.messages,
      tools: tools as ToolSet,
      toolApproval: options.toolApproval,
      stopWhen: options.stopWhen,
      instructions: options.system,
      maxRetries: options.maxRetries,
      abortSignal: this.#controller.signal,
      // The SDK's default prints provider errors to the console; they reach the log hook
      // through the stream's error parts instead.
      onError: () => {},
      onStart: (event) => {
        // Only the call id is read here: the SDK swallows callback errors, so no admission.
        this.#callId = event.callId;
      },
      prepareStep: async ({ stepNumber, messages }) => {
        this.#sdkStep = stepNumber;
        const step = this.#stepOffset + stepNumber;
        await this.#previousStepCommitted(stepNumber);
        let prepared: { messages: typeof messages } | undefined;
        if (options.compact) {
          const compacted = await this.#compact(options.compact, messages, step);
          if (compacted) prepared = { messages: compacted };
        }
        // A model id is resolved by the SDK and cannot be wrapped: admit it here (awaited).
        if (stringModel) await this.#admit(step, `${this.#executionId}-${stepNumber}`);
        return prepared;
      },
    });

    const chunks = toUIMessageStream({
      stream: result.stream.pipeThrough(this.#observeSdkParts(stringModel)),
      tools: tools as ToolSet,
      generateMessageId: () => this.#assembler.messageId,
      sendReasoning: true,
      // Provider text never leaves the server; tool error text is the application's own.
      onError: () => GENERIC_ERROR_TEXT,
      redactToolErrors: false,
    });

    let finishedSteps = 0;
    const reader = chunks.getReader();
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        if (this.#lost) continue;
        // A heartbeat checkpoint in progress sets the base of this delta.
        await this.#checkpointTail;
        this.#assembler.push(chunk);
        this.#pending++;
        this.#deps.bus.publish({
          type: 'run-delta',
          runId: this.runId,
          baseRevision: this.#baseRevision,
          seq: ++this.#seq,
          chunk,
        });
        this.#pendingBytes += chunkBytes(chunk);
        if (changesMessage(chunk)) this.#pendingChanges++;
        const structural = isStructuralChunk(chunk);
        if (structural || this.#batchDue()) {
          await this.#exclusiveCheckpoint('always');
        }
        if (chunk.type === 'finish-step') this.#stepDeferred(finishedSteps++).resolve();
      }
    } catch (error) {
      // The SDK's iterator throws for `stopWhen` / transform errors: not a provider failure.
      if (!this.#ownErrors.has(error as object)) {
        this.#log('error', 'The run stream failed', error);
        this.#fail('internal');
      }
    }
  }

  // ── operations ───────────────────────────────────────────────────────────────────────

  #middleware(): LanguageModelMiddleware {
    return {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        const step = this.#stepOffset + this.#sdkStep;
        const attempt = (this.#attempts.get(step) ?? 0) + 1;
        this.#attempts.set(step, attempt);
        await this.#previousStepCommitted(this.#sdkStep);
        const operation = await this.#admit(
          step,
          `${this.#callId ?? this.#executionId}:attempt-${attempt}`,
        );
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          await this.#endOperation(operation.id, this.#aborted() ? 'cancelled' : 'failed');
          if (!this.#aborted()) this.#log('warn', 'A model request attempt failed', error);
          throw error;
        }
        return { ...result, stream: result.stream.pipeThrough(this.#observeProvider(operation)) };
      },
    };
  }

  /** Waits until step `sdkStep - 1` of this call has its finish-step checkpoint committed. */
  async #previousStepCommitted(sdkStep: number): Promise<void> {
    if (sdkStep > 0) {
      await Promise.race([this.#stepDeferred(sdkStep - 1).promise, this.#abortedPromise()]);
    }
    this.#throwIfStopped();
  }

  /** Records `started` (awaited) — only then may the provider be called. */
  async #admit(step: number, identity: string): Promise<RunOperation> {
    this.#throwIfStopped();
    const operation: RunOperation = {
      id: `model-request:step-${step}:${identity}`,
      kind: 'model-request',
      phase: 'started',
      step,
      startedAt: now(),
    };
    await this.#recordOrStop(operation);
    return operation;
  }

  async #compact(
    compact: NonNullable<RunExecutionOptions['compact']>,
    messages: ModelMessage[],
    step: number,
  ): Promise<ModelMessage[] | undefined> {
    this.#throwIfStopped();
    const operation: RunOperation = {
      id: `compaction:step-${step}:${this.#callId ?? this.#executionId}`,
      kind: 'compaction',
      phase: 'started',
      step,
      startedAt: now(),
    };
    await this.#recordOrStop(operation);
    let result: Awaited<ReturnType<typeof compact>>;
    try {
      result = await compact({ messages, step, signal: this.#controller.signal });
    } catch (error) {
      const cancelled = this.#aborted();
      await this.#endOperation(operation.id, cancelled ? 'cancelled' : 'failed');
      if (!cancelled) {
        this.#log('error', 'The compact callback failed', error);
        this.#fail('compaction_failure', operation.id);
      }
      throw this.#own(error);
    }
    if (this.#aborted()) {
      await this.#endOperation(operation.id, 'cancelled');
      throw this.#own(new RunStoppedError('cancelled'));
    }
    await this.#endOperation(
      operation.id,
      'completed',
      result.status === 'compacted' ? 'compacted' : 'not_needed',
    );
    this.#throwIfStopped();
    return result.status === 'compacted' ? result.messages : undefined;
  }

  /** First output, provider errors and the end of a concrete model's request. */
  #observeProvider(operation: RunOperation) {
    return new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform: async (part, controller) => {
        if (part.type === 'error') {
          // Logged (and named provider_failure) when the SDK forwards it as a stream part.
          await this.#endOperation(operation.id, 'failed');
        } else if (isFirstOutput(part)) {
          await this.#firstOutput(operation.id);
        }
        controller.enqueue(part);
      },
      flush: async () => {
        await this.#endOperation(operation.id, 'completed');
      },
    });
  }

  /**
   * Failures the SDK reports as stream parts, named by their owner; and, for a model id
   * (no middleware), first output and the end of the request.
   */
  #observeSdkParts(stringModel: boolean) {
    return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
      transform: async (part, controller) => {
        if (part.type === 'error') {
          const error = part.error;
          if (!this.#ownErrors.has(error as object)) {
            if (FencingError.isInstance(error)) this.#loseOwnership();
            else if (StoreConflictError.isInstance(error)) this.#fail('storage_conflict');
            else {
              this.#log('error', 'The model request failed', error);
              this.#fail('provider_failure', this.#inFlightModelRequest());
            }
          }
          const current = this.#operation;
          if (current && !isTerminalPhase(current.phase)) {
            await this.#endOperation(current.id, this.#aborted() ? 'cancelled' : 'failed');
          }
        } else if (stringModel && this.#operation?.kind === 'model-request') {
          const id = this.#operation.id;
          if (part.type === 'finish-step') await this.#endOperation(id, 'completed');
          else if (this.#operation.phase === 'started' && isFirstSdkOutput(part)) {
            await this.#firstOutput(id);
          }
        }
        controller.enqueue(part);
      },
    });
  }

  #inFlightModelRequest(): string | undefined {
    const current = this.#operation;
    return current?.kind === 'model-request' ? current.id : undefined;
  }

  async #firstOutput(id: string): Promise<void> {
    const current = this.#operation;
    if (!current || current.id !== id || current.phase !== 'started') return;
    await this.#recordOrStop({ ...current, phase: 'first-output', firstOutputAt: now() });
  }

  /** Records the terminal phase of `id` once (a second caller finds it terminal already). */
  async #endOperation(
    id: string,
    phase: 'completed' | 'failed' | 'cancelled',
    outcome?: 'compacted' | 'not_needed',
  ): Promise<void> {
    const current = this.#operation;
    if (!current || current.id !== id || isTerminalPhase(current.phase) || this.#writesBroken) {
      return;
    }
    const next: RunOperation = { ...current, phase, endedAt: now() };
    if (current.kind === 'compaction' && phase === 'completed') next.outcome = outcome;
    try {
      await this.#record(next);
    } catch (error) {
      this.#onWriteError(error);
    }
  }

  /** Sets the in-memory operation before the write, so concurrent enders see it terminal. */
  async #record(operation: RunOperation): Promise<void> {
    this.#operation = operation;
    await this.#owned.recordRunOperation(operation);
    this.#lastWriteAt = performance.now();
  }

  async #recordOrStop(operation: RunOperation): Promise<void> {
    try {
      await this.#record(operation);
    } catch (error) {
      this.#onWriteError(error, operation.id);
      throw this.#own(error);
    }
  }

  // ── checkpoints ──────────────────────────────────────────────────────────────────────

  /** An ordinary batch is due after `checkpointEveryEvents` parts (and enough growth, opt-in). */
  #batchDue(): boolean {
    if (this.#pending < this.#deps.checkpointEveryEvents) return false;
    const growth = this.#deps.checkpointMinGrowth;
    return growth === undefined || this.#pendingBytes >= this.#checkpointBytes * growth;
  }

  /**
   * Checkpoints the assistant message with every chunk published so far. Runs exclusively
   * (loop checkpoints and lease heartbeats take turns), so the next delta names its revision.
   */
  #exclusiveCheckpoint(when: 'always' | 'if-changed'): Promise<void> {
    const run = async () => {
      // The last batch of a run often holds only chunks that leave the message as it is
      // (`finish`, `error`, `abort`): rewriting the whole message for them is waste.
      if (this.#writesBroken || (when === 'if-changed' && this.#pendingChanges === 0)) return;
      const message = await this.#assembler.snapshot();
      this.#lastMessage = message;
      try {
        const run = await this.#owned.saveAssistantCheckpoint(message);
        this.#lastWriteAt = performance.now();
        this.#baseRevision = run.revision;
        this.#seq = 0;
        this.#pending = 0;
        this.#pendingChanges = 0;
        this.#pendingBytes = 0;
        if (this.#deps.checkpointMinGrowth !== undefined) {
          this.#checkpointBytes = JSON.stringify(message).length;
        }
      } catch (error) {
        this.#onWriteError(error);
      }
    };
    const next = this.#checkpointTail.then(run);
    this.#checkpointTail = next;
    return next;
  }

  /**
   * Every owned mutation renews the lease; a long provider wait writes nothing, so an idle
   * execution re-checkpoints its message a third of a lease after its last write.
   */
  #startHeartbeat(): ReturnType<typeof setInterval> {
    const every = Math.max(1, Math.floor(this.#deps.leaseMs / 3));
    const timer = setInterval(() => {
      if (this.#stopped() || performance.now() - this.#lastWriteAt < every) return;
      void this.#exclusiveCheckpoint('always');
    }, every);
    timer.unref?.();
    return timer;
  }

  // ── the managed tool fence ───────────────────────────────────────────────────────────

  async #assertHeld(): Promise<void> {
    if (this.#lost) throw new RunStoppedError('ownership lost');
    const run = await this.#deps.store.getRun(this.runId);
    if (
      run.owner !== this.#owned.owner ||
      run.fencingToken !== this.#owned.fencingToken ||
      isTerminalStatus(run.status)
    ) {
      this.#loseOwnership();
      throw this.#own(
        new FencingError(
          this.runId,
          run.owner !== this.#owned.owner ? 'owner-mismatch' : 'stale-fencing-token',
          {
            owner: this.#owned.owner,
            fencingToken: this.#owned.fencingToken,
            currentOwner: run.owner,
            currentFencingToken: run.fencingToken,
          },
        ),
      );
    }
  }

  // ── failure bookkeeping ──────────────────────────────────────────────────────────────

  #onWriteError(error: unknown, operationId?: string): void {
    if (FencingError.isInstance(error)) {
      this.#loseOwnership();
    } else if (StoreConflictError.isInstance(error)) {
      this.#writesBroken = true;
      this.#fail('storage_conflict', operationId);
    } else if (!(error instanceof RunStoppedError)) {
      this.#writesBroken = true;
      this.#log('error', 'A run mutation failed', error);
      this.#fail('internal', operationId);
    }
  }

  /** The first failure names the run's; the SDK is stopped so no further step starts. */
  #fail(code: FailureCode, operationId?: string): void {
    if (!this.#failure) {
      this.#failure = operationId ? { code, operationId } : { code };
    }
    this.#controller.abort(new RunStoppedError(code));
  }

  /** The new owner writes from now on: this execution writes and publishes nothing more. */
  #loseOwnership(): void {
    if (!this.#lost) {
      this.#log('warn', 'Ownership lost: another owner holds the run; this execution stops');
    }
    this.#lost = true;
    this.#writesBroken = true;
    this.#controller.abort(new RunStoppedError('ownership_lost'));
  }

  #own<T>(error: T): T {
    if (typeof error === 'object' && error !== null) this.#ownErrors.add(error);
    return error;
  }

  #aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  #stopped(): boolean {
    return this.#lost || this.#failure !== null || this.#aborted();
  }

  #throwIfStopped(): void {
    if (this.#stopped()) throw this.#own(new RunStoppedError('the run was stopped'));
  }

  /** One promise per execution (not a listener per step) that settles when it aborts. */
  #abortedPromise(): Promise<void> {
    if (!this.#onAbort) {
      const signal = this.#controller.signal;
      this.#onAbort = signal.aborted
        ? Promise.resolve()
        : new Promise((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          );
    }
    return this.#onAbort;
  }

  #stepDeferred(index: number): Deferred {
    let entry = this.#stepFinished[index];
    if (!entry) {
      entry = deferred();
      this.#stepFinished[index] = entry;
    }
    return entry;
  }

  #log(level: RuntimeLogEntry['level'], message: string, error?: unknown): void {
    try {
      this.#deps.log({ level, message, runId: this.runId, error });
    } catch {
      // A failing log hook must not change the run's outcome.
    }
  }

  // ── the end ──────────────────────────────────────────────────────────────────────────

  async #finish(): Promise<AgentRun> {
    if (!this.#lost) await this.#exclusiveCheckpoint('if-changed');
    if (this.#lost) return this.#currentRun();

    const awaitingApproval =
      !this.#stopped() &&
      this.#lastMessage.parts.some(
        (part) => 'state' in part && part.state === 'approval-requested',
      );
    const current = this.#operation;
    if (current && !isTerminalPhase(current.phase) && !this.#writesBroken) {
      if (!this.#aborted()) this.#fail('internal', current.id);
      await this.#endOperation(current.id, this.#failure ? 'failed' : 'cancelled');
    }
    if (this.#lost) return this.#currentRun();
    if (awaitingApproval && !this.#stopped()) return this.#owned.run;

    const terminal = this.#failure
      ? { status: 'failed' as const, failure: this.#failure }
      : this.#aborted()
        ? { status: 'cancelled' as const }
        : { status: 'completed' as const };
    try {
      if (this.#writesBroken) return await this.#recoverAndFail();
      return await this.#owned.commitTerminal(terminal);
    } catch (error) {
      if (FencingError.isInstance(error)) {
        this.#loseOwnership();
        return this.#currentRun();
      }
      if (StoreConflictError.isInstance(error)) {
        this.#fail('storage_conflict');
        return this.#recoverAndFail();
      }
      this.#log('error', 'The terminal commit failed', error);
      return this.#currentRun();
    }
  }

  /**
   * After a lost compare-and-set the handle names a stale revision. If this runtime still
   * holds the run, a fresh handle records the in-flight operation failed and ends the run
   * with the failure (`storage_conflict` unless another owner was named first).
   */
  async #recoverAndFail(): Promise<AgentRun> {
    try {
      const fresh = await this.#deps.store.getRun(this.runId);
      if (
        fresh.owner !== this.#owned.owner ||
        fresh.fencingToken !== this.#owned.fencingToken ||
        isTerminalStatus(fresh.status)
      ) {
        return fresh;
      }
      this.#owned = new OwnedRun(this.#deps.publishing, fresh, { queue: this.#deps.queue });
      const current = fresh.lastOperation;
      if (current && !isTerminalPhase(current.phase)) {
        await this.#owned.recordRunOperation({ ...current, phase: 'failed', endedAt: now() });
      }
      return await this.#owned.commitTerminal({
        status: 'failed',
        failure: this.#failure ?? { code: 'storage_conflict' },
      });
    } catch (error) {
      this.#log('error', 'The run could not be ended after a storage conflict', error);
      return this.#currentRun();
    }
  }

  async #currentRun(): Promise<AgentRun> {
    try {
      return await this.#deps.store.getRun(this.runId);
    } catch {
      return this.#owned.run;
    }
  }
}

/** What a chunk adds to the message, roughly: the text of a delta, else its JSON. */
function chunkBytes(chunk: UIMessageChunk): number {
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return chunk.delta.length;
    case 'tool-input-delta':
      return chunk.inputTextDelta.length;
    default:
      return 16;
  }
}

/** False for chunks after which the assembled message is unchanged. */
function changesMessage(chunk: UIMessageChunk): boolean {
  switch (chunk.type) {
    case 'start':
    case 'finish':
      return chunk.messageMetadata != null;
    case 'error':
    case 'abort':
    case 'finish-step':
      return false;
    default:
      return true;
  }
}
