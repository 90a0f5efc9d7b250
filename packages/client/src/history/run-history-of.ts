import type { RunlightClient } from '../create-runlight-client';
import { RunHistory } from './run-history';

const histories = new WeakMap<RunlightClient, Map<string, RunHistory>>();

/**
 * The operation history of `runId` on `client` (one per client and id), merged with the run's
 * store's live events. It reads nothing until something subscribes to it; a history whose read
 * failed reads again on `client.retry()`. A function, not a client method: a page that never
 * shows a history carries none of its code.
 *
 * @example
 * const history = runHistoryOf(client, 'run-1');
 * history.subscribe(() => render(history.getState().operations));
 */
export function runHistoryOf(client: RunlightClient, runId: string): RunHistory {
  let ofClient = histories.get(client);
  if (ofClient === undefined) {
    const created = new Map<string, RunHistory>();
    ofClient = created;
    histories.set(client, created);
    client.onRetry(() => {
      for (const history of created.values()) {
        if (history.getState().status === 'error') void history.load();
      }
    });
  }
  let history = ofClient.get(runId);
  if (history === undefined) {
    history = new RunHistory(client.run(runId), client.requests);
    ofClient.set(runId, history);
  }
  return history;
}
