import { applyEvent, type RunState, type RunStore, watchLeaseExpiry } from '@runlight/client';
import type { DurableRunEvent } from '@runlight/protocol';

/** What `followRun` reports: every state the run passes through, and each durable event. */
export interface RunFollower {
  /** A state of the run: after each durable event, and each time the store notifies. */
  state(state: RunState): void;
  /** A durable event, before the state it leads to. */
  event(event: DurableRunEvent): void;
}

/**
 * Follows a run's store so that no phase is skipped: the store notifies once per burst of
 * events (a model request's start, first output and end may arrive together), so each durable
 * event is also merged into a shadow of the state (`applyEvent`, the client's own merge rule)
 * and that state reported. The store's own states follow as they are notified, and again at the
 * moment the owner's lease expires (a stall: nothing arrives then). Returns the stop function.
 *
 * @example
 * const stop = followRun(client.run(runId), { state: print, event: noteTakeover });
 */
export function followRun(store: RunStore, follower: RunFollower): () => void {
  let shadow: RunState | null = null;
  let shadowBase: RunState | null = null;
  const offEvents = store.observeDurableEvents((event) => {
    const current = store.getState();
    // A burst merges into the store in one commit, after its events: until then the shadow
    // goes on from the last committed state.
    if (shadowBase !== current || shadow === null) {
      shadow = current;
      shadowBase = current;
    }
    follower.event(event);
    shadow = applyEvent(shadow, event);
    follower.state(shadow);
  });
  const offStore = store.subscribe(() => follower.state(store.getState()));
  const offLease = watchLeaseExpiry(store, () => follower.state(store.getState()));
  follower.state(store.getState());
  return () => {
    offEvents();
    offLease();
    offStore();
  };
}
