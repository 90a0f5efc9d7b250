import { applyEvent, type RunState, type RunStore, watchLeaseExpiry } from '@runlight/client';
import type { DurableRunEvent } from '@runlight/protocol';

/** One step of a run as `followRun` reports it: a durable event, or a state the run was in. */
export type RunStep =
  | { readonly type: 'event'; readonly event: DurableRunEvent }
  | { readonly type: 'state'; readonly state: RunState };

/**
 * Follows a run's store so that no phase is skipped: the store notifies once per burst of
 * events (a model request's start, first output and end may arrive together), so each durable
 * event is also merged into a shadow of the state (`applyEvent`, the client's own merge rule).
 * At each notification `onSteps` gets the burst's steps — each durable event and the state after
 * it — then the store's committed state (which alone holds the burst's text deltas). It gets
 * the committed state again at the moment the owner's lease expires (a stall: nothing arrives
 * then). Returns the stop function.
 *
 * @example
 * const stop = followRun(client.run(runId), (steps, committed) => print(steps, committed));
 */
export function followRun(
  store: RunStore,
  onSteps: (steps: readonly RunStep[], committed: RunState) => void,
): () => void {
  let steps: RunStep[] = [];
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
    shadow = applyEvent(shadow, event);
    steps.push({ type: 'event', event }, { type: 'state', state: shadow });
  });
  const deliver = () => {
    const committed = store.getState();
    const burst = steps;
    steps = [];
    shadow = null;
    onSteps([...burst, { type: 'state', state: committed }], committed);
  };
  const offStore = store.subscribe(deliver);
  const offLease = watchLeaseExpiry(store, deliver);
  deliver();
  return () => {
    offEvents();
    offLease();
    offStore();
  };
}
