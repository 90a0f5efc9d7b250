import { cursorOf, type RunStore, runLogOf, type SentControlRequest } from '@runlight/client';

/**
 * A run as a bug report can carry it: what the client received from its server — the run
 * record and assistant message in the form the server's policy exposes (by default the public
 * form: an opaque holder tag, no fencing token, failure codes, never provider text) — its
 * durable log, the deltas counted and the control requests it sent. Never the client's
 * headers, credentials or anything else the app configured.
 *
 * @example
 * await navigator.clipboard.writeText(runAsJson(store, requests));
 */
export function runAsJson(store: RunStore, requests: readonly SentControlRequest[]): string {
  const state = store.getState();
  const log = runLogOf(store).getState();
  const report = {
    runId: store.runId,
    copiedAt: new Date().toISOString(),
    state: {
      phase: state.phase,
      connection: state.connection,
      revision: state.revision,
      cursor: cursorOf(state),
      clockOffsetMs: state.clockOffsetMs,
      run: state.run,
      assistant: state.assistant,
      live:
        state.live === null ? null : { baseRevision: state.live.baseRevision, seq: state.live.seq },
      heldEvents: state.pending.size,
      error: state.error === null ? null : { kind: state.error.kind, message: state.error.message },
    },
    log: {
      baseRevision: log.base.revision,
      dropped: log.dropped,
      deltas: log.deltas,
      entries: log.entries.map((entry) =>
        entry.kind === 'snapshot'
          ? {
              kind: 'snapshot',
              revision: entry.revision,
              bytes: entry.bytes,
              receivedAt: new Date(entry.receivedAt).toISOString(),
              snapshot: entry.snapshot,
            }
          : {
              kind: 'event',
              revision: entry.revision,
              bytes: entry.bytes,
              receivedAt: new Date(entry.receivedAt).toISOString(),
              event: entry.event,
            },
      ),
    },
    controlRequests: requests.filter((request) => request.runId === store.runId),
  };
  return JSON.stringify(report, null, 2);
}
