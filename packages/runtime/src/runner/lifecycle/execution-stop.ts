import type { FailureCode, RunFailure } from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { StoreRecordError } from '../../errors/store-record-error';
import { StoreUnavailableError } from '../../errors/store-unavailable-error';
import type { ExecutionLog } from '../execution-log';
import { isShutdownAbort } from './shutdown-abort';

/** Thrown into the SDK when the run must not go on (its failure is already recorded). */
export class RunStoppedError extends Error {
  override readonly name = 'RunStoppedError';
}

/**
 * Why one execution stops. A failure is named by whoever owned it (ADR 0174): the lifecycle's
 * own lost compare-and-set is `storage_conflict`, an upstream error `provider_failure`, a
 * broken configuration or mutation `internal`; the first name is the run's. A lost lease
 * silences the execution instead: the new owner writes from then on. Either way the SDK call
 * is aborted so no further step starts.
 *
 * Errors this execution threw into the SDK itself are marked (`own`), so that when they come
 * back out of the stream they are not named a second time.
 *
 * @example
 * const stop = new ExecutionStop(controller, log);
 * stop.onWriteError(error, operation.id); // storage_conflict, internal, or ownership lost
 * stop.failure; // { code: 'storage_conflict', operationId: '…' }
 */
export class ExecutionStop {
  readonly #controller: AbortController;
  readonly #log: ExecutionLog;
  readonly #ownErrors = new WeakSet<object>();
  #failure: RunFailure | null = null;
  #lost = false;
  #writesBroken = false;
  #onAbort: Promise<void> | undefined;

  constructor(controller: AbortController, log: ExecutionLog) {
    this.#controller = controller;
    this.#log = log;
  }

  /** The run's failure: the first one named. */
  get failure(): RunFailure | null {
    return this.#failure;
  }

  /** Another owner holds the run: this execution writes and publishes nothing more. */
  get lost(): boolean {
    return this.#lost;
  }

  /** The writer handle names a stale revision (or lost its lease): no ordinary write may follow. */
  get writesBroken(): boolean {
    return this.#writesBroken;
  }

  /** Names the failure of an owned mutation after its owner. */
  onWriteError(error: unknown, operationId?: string): void {
    if (FencingError.isInstance(error)) {
      this.loseOwnership();
    } else if (StoreConflictError.isInstance(error)) {
      this.#writesBroken = true;
      this.fail('storage_conflict', operationId);
    } else if (StoreRecordError.isInstance(error)) {
      // The head is not what this writer wrote and does not parse: nothing may be written on
      // top of it, not even the run's end (the record stays as stored; reads report it).
      this.#writesBroken = true;
      this.#log('error', 'The store holds a record it cannot read; the run stops writing', error);
      this.fail('storage_conflict', operationId);
    } else if (StoreUnavailableError.isInstance(error)) {
      // The bounded retries are spent: whether the last try landed is unknown, so the run is
      // ended from a fresh read of the store (`recoverAndFail`).
      this.#writesBroken = true;
      this.#log('error', 'The store kept failing', error);
      this.fail('storage_unavailable', operationId);
    } else if (!(error instanceof RunStoppedError)) {
      this.#writesBroken = true;
      this.#log('error', 'A run mutation failed', error);
      this.fail('internal', operationId);
    }
  }

  /**
   * Names a failure the SDK reports as a stream part: this execution's own errors are named
   * already; a lifecycle error thrown out of the middleware is the lifecycle's, not the
   * provider's; anything else is the provider's, with the model request in flight.
   */
  onStreamError(error: unknown, inFlightModelRequest: () => string | undefined): void {
    if (this.isOwn(error)) return;
    if (FencingError.isInstance(error)) this.loseOwnership();
    else if (StoreConflictError.isInstance(error) || StoreRecordError.isInstance(error))
      this.fail('storage_conflict');
    else if (StoreUnavailableError.isInstance(error)) this.fail('storage_unavailable');
    else {
      this.#log('error', 'The model request failed', error);
      this.fail('provider_failure', inFlightModelRequest());
    }
  }

  /** The first failure names the run's; the SDK is stopped so no further step starts. */
  fail(code: FailureCode, operationId?: string): void {
    if (!this.#failure) {
      this.#failure = operationId ? { code, operationId } : { code };
    }
    this.#controller.abort(new RunStoppedError(code));
  }

  /** The new owner writes from now on: this execution writes and publishes nothing more. */
  loseOwnership(): void {
    if (!this.#lost) {
      this.#log('warn', 'Ownership lost: another owner holds the run; this execution stops');
    }
    this.#lost = true;
    this.#writesBroken = true;
    this.#controller.abort(new RunStoppedError('ownership_lost'));
  }

  /**
   * The terminal phase of an operation this execution ends now: `failed` once a failure is
   * named (a provider failure aborts the SDK call too — the abort is not a cancel), `cancelled`
   * for an abort nobody named, else `failed`.
   */
  endPhase(): 'failed' | 'cancelled' {
    return this.#failure === null && this.aborted() ? 'cancelled' : 'failed';
  }

  /** Marks `error` as thrown by this execution (its failure, if any, is named already). */
  own<T>(error: T): T {
    if (typeof error === 'object' && error !== null) this.#ownErrors.add(error);
    return error;
  }

  isOwn(error: unknown): boolean {
    return this.#ownErrors.has(error as object);
  }

  aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * Stopped by a graceful shutdown (`runtime.close()`) and by nothing else: the run is not
   * ended but handed off (it stays `running`, its lease expires now).
   */
  handingOff(): boolean {
    const signal = this.#controller.signal;
    return signal.aborted && isShutdownAbort(signal.reason) && !this.#lost && !this.#failure;
  }

  stopped(): boolean {
    return this.#lost || this.#failure !== null || this.aborted();
  }

  throwIfStopped(): void {
    if (this.stopped()) throw this.own(new RunStoppedError('the run was stopped'));
  }

  /** One promise per execution (not a listener per step) that settles when it aborts. */
  abortedPromise(): Promise<void> {
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
}
