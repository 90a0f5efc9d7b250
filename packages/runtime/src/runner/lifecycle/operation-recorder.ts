import { isTerminalPhase, type ModelFailureReason, type RunOperation } from '@runlight/protocol';
import { type ExecutionContext, now } from '../execution-context';

/** Why a model request attempt failed, and whether the AI SDK tries again. */
export interface ModelRequestFailure {
  failureReason: ModelFailureReason;
  willRetry: boolean;
  /** When `willRetry`: the SDK's wait before the next attempt and its attempts in all. */
  retry?: { delayMs: number; maxAttempts: number };
}

/**
 * The execution's side of `AgentRun.lastOperation`: it holds the current operation and
 * records its phases through the owned handle. The in-memory operation is set before each
 * write, so a second caller ending the same operation (the provider stream, the SDK's error
 * part, the end of the run) finds it terminal and writes nothing.
 *
 * @example
 * const recorder = new OperationRecorder(context, acquired.lastOperation);
 * await recorder.recordOrStop({ id, kind: 'model-request', phase: 'started', step, startedAt: now() });
 * await recorder.firstOutput(id);
 * await recorder.endOperation(id, 'completed');
 */
export class OperationRecorder {
  readonly #context: ExecutionContext;
  #operation: RunOperation | null;

  constructor(context: ExecutionContext, operation: RunOperation | null) {
    this.#context = context;
    this.#operation = operation;
  }

  /** The current (or last) operation as this execution last recorded or found it. */
  get current(): RunOperation | null {
    return this.#operation;
  }

  /** The id a `provider_failure` names: the model request in flight, if one is. */
  inFlightModelRequest(): string | undefined {
    const current = this.#operation;
    return current?.kind === 'model-request' ? current.id : undefined;
  }

  /** True while `id` is the current operation and still `started` (`firstOutput` would write). */
  awaitsFirstOutput(id: string): boolean {
    const current = this.#operation;
    return current !== null && current.id === id && current.phase === 'started';
  }

  /** Records `first-output` once, while `id` is the current operation and still `started`. */
  async firstOutput(id: string): Promise<void> {
    const current = this.#operation;
    if (current === null || !this.awaitsFirstOutput(id)) return;
    await this.recordOrStop({ ...current, phase: 'first-output', firstOutputAt: now() });
  }

  /** Records the terminal phase of `id` once (a second caller finds it terminal already). */
  async endOperation(
    id: string,
    phase: 'completed' | 'failed' | 'cancelled',
    outcome?: 'compacted' | 'not_needed',
    failure?: ModelRequestFailure,
  ): Promise<void> {
    const current = this.#operation;
    const stop = this.#context.stop;
    if (!current || current.id !== id || isTerminalPhase(current.phase) || stop.writesBroken) {
      return;
    }
    const endedAt = now();
    const next: RunOperation = { ...current, phase, endedAt };
    if (current.kind === 'compaction' && phase === 'completed') next.outcome = outcome;
    if (current.kind === 'model-request' && phase === 'failed' && failure) {
      next.failureReason = failure.failureReason;
      next.willRetry = failure.willRetry;
      if (failure.willRetry && failure.retry !== undefined) {
        next.retryAt = new Date(Date.parse(endedAt) + failure.retry.delayMs).toISOString();
        next.maxAttempts = failure.retry.maxAttempts;
      }
    }
    try {
      await this.#record(next);
    } catch (error) {
      stop.onWriteError(error);
    }
  }

  /** Records `operation`; a failed write names the run's failure and stops the SDK call. */
  async recordOrStop(operation: RunOperation): Promise<void> {
    try {
      await this.#record(operation);
    } catch (error) {
      this.#context.stop.onWriteError(error, operation.id);
      throw this.#context.stop.own(error);
    }
  }

  /** Sets the in-memory operation before the write, so concurrent enders see it terminal. */
  async #record(operation: RunOperation): Promise<void> {
    this.#operation = operation;
    await this.#context.owned.recordRunOperation(operation);
    this.#context.lastWriteAt = performance.now();
  }
}
