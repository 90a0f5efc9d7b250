import { isDurableEvent } from '@runlight/protocol';
import type { EventSourceMessage } from 'eventsource-parser';
import { RunlightClientError } from '../errors/runlight-client-error';
import { applyEvent } from '../merge/apply-event';
import { HeldEvents } from '../merge/held-events';
import type { RunState } from '../merge/run-state';
import { parseServerMessage } from './parse-server-message';
import type { RunStoreHost } from './run-store-host';

/** What one parsed burst did to the state. */
export interface BatchResult {
  /** Whether the connection must reset (reload the snapshot, resume from its revision). */
  reset: boolean;
  /** Set when the server ended the stream because access is gone. */
  revoked: RunlightClientError | null;
  /** Highest durable revision on the connection after the burst. */
  connectionRevision: number;
}

/**
 * Merges one parsed burst of SSE messages into the host's state with one commit (one
 * notification): validates each, catches a revision going back on one connection, an
 * implausible revision jump and too many held events (both reset).
 */
export function applyStreamBatch(
  host: RunStoreHost,
  messages: EventSourceMessage[],
  connectionRevision: number,
): BatchResult {
  const { runId, context } = host;
  const { maxHeldEvents, maxRevisionGap } = context.limits;
  let state = host.state();
  let error: RunlightClientError | null = null;
  let reset = false;
  let revoked: RunlightClientError | null = null;
  for (const message of messages) {
    const parsed = parseServerMessage(message, runId);
    if (parsed.kind === 'invalid') {
      error = parsed.error;
      continue;
    }
    if (parsed.kind === 'unauthorized') {
      // Access was revoked mid-stream: keep what arrived before it, then stop as on a 401/403.
      revoked = parsed.error;
      break;
    }
    if (parsed.kind === 'reset') {
      reset = true;
      break;
    }
    if (parsed.kind === 'deltas') {
      // Exactly as the separate `run-delta` messages it stands for.
      for (const delta of parsed.events) state = applyEvent(state, delta);
      if (state.pending.size > maxHeldEvents) {
        reset = true;
        ({ state, error } = tooManyHeld(state, maxHeldEvents));
        break;
      }
      continue;
    }
    const { event } = parsed;
    if (isDurableEvent(event)) {
      if (event.revision < connectionRevision) {
        error = new RunlightClientError(
          'revision-backwards',
          `Revision ${event.revision} arrived after revision ${connectionRevision} on one connection`,
          { field: 'revision' },
        );
        continue;
      }
      if (
        !Number.isSafeInteger(event.revision + maxRevisionGap) ||
        (state.run !== null && event.revision > state.revision + maxRevisionGap)
      ) {
        // Waiting for the revisions in between would wait forever: reload instead.
        error = new RunlightClientError(
          'implausible-revision',
          `Revision ${event.revision} is implausibly far beyond revision ${state.revision} (maxRevisionGap ${maxRevisionGap})`,
          { field: 'revision' },
        );
        reset = true;
        break;
      }
      connectionRevision = event.revision;
      host.emitDurable(event);
    }
    state = applyEvent(state, event);
    if (state.pending.size > maxHeldEvents) {
      reset = true;
      ({ state, error } = tooManyHeld(state, maxHeldEvents));
      break;
    }
  }
  host.commit(error === null ? state : { ...state, error });
  return { reset, revoked, connectionRevision };
}

/** Held events are bounded: drop them (the snapshot covers them) and reload. */
function tooManyHeld(state: RunState, maxHeldEvents: number) {
  return {
    state: { ...state, pending: HeldEvents.empty, phase: 'gap' as const },
    error: new RunlightClientError(
      'limit-exceeded',
      `More than ${maxHeldEvents} out-of-order events are held (maxHeldEvents): reloading`,
      { field: 'maxHeldEvents' },
    ),
  };
}
