import { batchSnapshotLoader } from '../connection/batch-snapshot-loader';
import { validateSnapshot } from '../connection/fetch-snapshot';
import {
  createRunlightClient,
  type RunlightClient,
  type RunlightClientOptions,
} from '../create-runlight-client';
import { RunMultiplexer } from './run-multiplexer';

export interface MultiplexedRunlightClientOptions
  extends Omit<RunlightClientOptions, 'loadSnapshot'> {
  /** The set of runs settles this long before the shared connection re-opens. Default 10 ms. */
  reopenDelayMs?: number;
}

export interface MultiplexedRunlightClient extends RunlightClient {
  readonly multiplexer: RunMultiplexer;
}

/**
 * A Runlight client for pages that show many runs: every store it makes follows its run over
 * ONE shared event-stream connection (`RunMultiplexer`, the server's `createMultiplexHandlers`)
 * and loads snapshots in batches (`GET …/runs?ids=`). Each store keeps the single-run client's
 * rules; a store with no subscriber costs the connection nothing.
 *
 * @example
 * const client = createMultiplexedRunlightClient({ baseUrl: '/api' });
 * <RunlightProvider client={client}>{runIds.map((id) => <RunStatus key={id} runId={id} />)}</RunlightProvider>
 */
export function createMultiplexedRunlightClient(
  options: MultiplexedRunlightClientOptions,
): MultiplexedRunlightClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const multiplexer = new RunMultiplexer({
    baseUrl,
    fetch,
    ...(options.reopenDelayMs === undefined ? {} : { reopenDelayMs: options.reopenDelayMs }),
  });
  const { headers, credentials } = options;
  const requestInit = async (): Promise<RequestInit> => ({
    headers: typeof headers === 'function' ? await headers() : (headers ?? {}),
    ...(credentials === undefined ? {} : { credentials }),
  });
  const batched = batchSnapshotLoader({
    baseUrl,
    fetch,
    now: options.now ?? Date.now,
    requestInit,
  });
  // Every snapshot load batches, also a host cache's (e.g. `RunlightProvider`'s query loader
  // calls `client.fetchSnapshot`).
  const fetchSnapshot: RunlightClient['fetchSnapshot'] = async (runId, fetchOptions = {}) => {
    const load = await batched(runId, fetchOptions);
    return {
      snapshot: validateSnapshot(load.snapshot, runId),
      clockOffsetMs: load.clockOffsetMs ?? null,
    };
  };
  const client = createRunlightClient({
    ...options,
    baseUrl,
    fetch: multiplexer.fetch,
    // The leading tab holds ONE connection for the runs of every tab.
    shareTabs: options.shareTabs ?? options.fetch === undefined,
    loadSnapshot: fetchSnapshot,
  });
  return { ...client, fetchSnapshot, multiplexer };
}
