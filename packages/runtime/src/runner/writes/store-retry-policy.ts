import { ProtocolValidationError } from '@runlight/protocol';
import { RunlightError } from '../../errors/runlight-error';
import { StoreConflictError } from '../../errors/store-conflict-error';

/**
 * The store retry policy of the runner's writes (`resilientStore`): how many tries, the
 * pauses between them, and which errors are never retried.
 */

/** How often one store mutation is tried, and the first pause between tries (doubling). */
export interface StoreRetryOptions {
  /** Tries of one mutation, the first included. Default 4. */
  attempts?: number;
  /** The pause before the second try, doubled before each further one. Default 20 ms. */
  delayMs?: number;
}

export const DEFAULT_STORE_RETRY: Required<StoreRetryOptions> = { attempts: 4, delayMs: 20 };

/** The tries of one mutation and the pause before its second, as `retry` asks (or the default). */
export function storeRetryOf(retry: StoreRetryOptions | undefined): Required<StoreRetryOptions> {
  return {
    attempts: Math.max(1, Math.floor(retry?.attempts ?? DEFAULT_STORE_RETRY.attempts)),
    delayMs: Math.max(0, retry?.delayMs ?? DEFAULT_STORE_RETRY.delayMs),
  };
}

/** Waits out the pause after try `attempt` (the first pause `delayMs`, doubling). */
export function pauseAfter(attempt: number, delayMs: number): Promise<void> {
  const ms = delayMs * 2 ** (attempt - 1);
  return ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/**
 * Errors that say what the store decided (a rule, a lost lease, a missing run, a bad record):
 * repeating the mutation cannot change them. Everything else — a driver's dropped connection,
 * a timeout — may be transient, and a write may even have landed before its answer was lost.
 */
export function isDecision(error: unknown): boolean {
  return (
    (RunlightError.isRunlightError(error) && !StoreConflictError.isInstance(error)) ||
    ProtocolValidationError.isInstance(error)
  );
}
