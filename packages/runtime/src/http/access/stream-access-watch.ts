import type { AccessRefusal, StreamReauthorization } from './access-policy';

export interface StreamAccessWatchHandlers {
  /** Access is gone: end the stream with `unauthorized`. */
  revoked(refusal: AccessRefusal): void;
  /** The policy failed (it reported why): end the stream plainly; the reconnect asks again. */
  failed(error?: unknown): void;
}

/**
 * Re-asks an open stream's access policy every `everyMs` (one check at a time; a slow policy
 * skips ticks rather than piling up), until `stop()`. The timer never keeps a process alive.
 *
 * @example
 * const watch = new StreamAccessWatch(reauthorize, { revoked: (r) => end(r), failed: () => close() });
 * // …on close:
 * watch.stop();
 */
export class StreamAccessWatch {
  readonly #reauthorize: StreamReauthorization;
  readonly #handlers: StreamAccessWatchHandlers;
  #timer: ReturnType<typeof setInterval> | null;
  #checking = false;

  constructor(reauthorize: StreamReauthorization, handlers: StreamAccessWatchHandlers) {
    this.#reauthorize = reauthorize;
    this.#handlers = handlers;
    this.#timer = setInterval(this.#check, reauthorize.everyMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Ends the re-checks; a check in flight reports nothing. Idempotent. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  readonly #check = () => {
    if (this.#checking || this.#timer === null) return;
    this.#checking = true;
    this.#reauthorize.check().then(
      (refusal) => {
        this.#checking = false;
        if (refusal === null || this.#timer === null) return;
        this.stop();
        if (refusal.status >= 500) this.#handlers.failed();
        else this.#handlers.revoked(refusal);
      },
      (error: unknown) => {
        this.#checking = false;
        if (this.#timer === null) return;
        this.stop();
        this.#handlers.failed(error);
      },
    );
  };
}
