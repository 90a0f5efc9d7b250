import type { RunState } from '../merge/run-state';
import { selectLeaseExpiry } from '../select/select-activity';

/** What `watchLeaseExpiry` needs of a run store. */
export interface LeaseExpirySource {
  getState(): RunState;
  subscribe(listener: () => void): () => void;
}

/**
 * Calls `onExpire` at the moment the held run's lease expires (on the server clock as the
 * client estimates it) — when its activity turns `stalled` although no data arrives. One
 * timer, rescheduled only when the expiry moves (a new lease, a new clock offset); never a
 * poll. Bindings use it to re-read `selectActivity`. Returns the function that stops it.
 *
 * @example
 * const stop = watchLeaseExpiry(store, () => render(selectActivity(store.getState())));
 */
export function watchLeaseExpiry(source: LeaseExpirySource, onExpire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let scheduled: number | null = null;

  const arm = (at: number) => {
    // Timers may fire a little early on some platforms: wait out the rest, then report.
    timer = setTimeout(() => {
      if (Date.now() < at) return arm(at);
      timer = undefined;
      onExpire();
    }, at - Date.now());
  };
  const reschedule = () => {
    const expiry = selectLeaseExpiry(source.getState());
    const at = expiry !== null && expiry > Date.now() ? expiry : null;
    if (at === scheduled && (at === null || timer !== undefined)) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    scheduled = at;
    if (at !== null) arm(at);
  };

  const unsubscribe = source.subscribe(reschedule);
  reschedule();
  return () => {
    unsubscribe();
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}
