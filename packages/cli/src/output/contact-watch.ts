import type { RunState } from '@runlight/client';
import { ANSWER_GRACE_MS, outOfContact } from './unreadable';

/**
 * The clock of `--wait`: how long the server has been out of contact for one run — from the
 * first state that says so (`outOfContact`) until one that does not — and a timer that calls
 * `onDue` when that reaches `waitMs` (and again after `ANSWER_GRACE_MS`), because nothing else arrives then (a dead server sends
 * nothing). Every read is bounded so, not only the first load: a server that dies mid-run ends
 * the command `waitMs` after its stream broke off.
 *
 * @example
 * const watch = new ContactWatch(30_000, () => check(store.getState()));
 * store.subscribe(() => watch.observe(store.getState()));
 * watch.outOfContactMs(); // 0 while the stream is live
 */
export class ContactWatch {
  readonly #waitMs: number;
  readonly #onDue: () => void;
  readonly #now: () => number;
  #since: number | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #last: RunState | null = null;

  constructor(waitMs: number, onDue: () => void, now: () => number = Date.now) {
    this.#waitMs = waitMs;
    this.#onDue = onDue;
    this.#now = now;
  }

  /** Takes the run's latest state; starts or stops the out-of-contact clock. */
  observe(state: RunState): void {
    const answered = this.#answered(state);
    if (!outOfContact(state)) {
      this.#since = null;
      this.#clear();
      return;
    }
    // Out of contact counts from the server's last answer: a snapshot merged while the stream
    // is still opening (or reopening) is one.
    if (this.#since !== null && !answered) return;
    this.#clear();
    this.#since = this.#now();
    this.#arm(this.#waitMs);
  }

  /** Whether `state` holds something only the server could have sent since the last one. */
  #answered(state: RunState): boolean {
    const last = this.#last;
    this.#last = state;
    return (
      last !== null &&
      (state.run !== last.run || state.revision !== last.revision || state.live !== last.live)
    );
  }

  #arm(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A timer may fire a little early: wait out the rest, so `onDue` sees the wait over. Due
      // twice: at `waitMs` (an attempt failed) and after the grace (a request never answered).
      const elapsed = this.outOfContactMs();
      const left = this.#waitMs - elapsed;
      if (left > 0) return this.#arm(left);
      this.#onDue();
      const graceLeft = this.#waitMs + ANSWER_GRACE_MS - elapsed;
      if (graceLeft > 0) this.#arm(graceLeft);
    }, ms);
  }

  /** ms the server has been out of contact (0 when it is in contact). */
  outOfContactMs(): number {
    return this.#since === null ? 0 : Math.max(0, this.#now() - this.#since);
  }

  /** Whether it is out of contact now. */
  get lost(): boolean {
    return this.#since !== null;
  }

  stop(): void {
    this.#stopped = true;
    this.#clear();
  }

  #clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
