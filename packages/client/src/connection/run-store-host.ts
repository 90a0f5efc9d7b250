import type { DurableRunEvent } from '@runlight/protocol';
import type { RunlightClientError } from '../errors/runlight-client-error';
import type { RunState } from '../merge/run-state';
import type { RunStoreContext } from '../run-store-context';

/** What the connection needs from the store that holds the state. */
export interface RunStoreHost {
  readonly runId: string;
  readonly context: RunStoreContext;
  state(): RunState;
  commit(next: RunState): void;
  /** Records an error on the state (the last good state stays). */
  fail(error: unknown): void;
  /** Loads and merges the snapshot (deduplicated); the error it reported, or `null`. */
  load(signal: AbortSignal): Promise<RunlightClientError | null>;
  isLoading(): boolean;
  /** Hands a valid durable event to `observeDurableEvents` listeners. */
  emitDurable(event: DurableRunEvent): void;
}
