import { createRunlightClient, type LoadedSnapshot, type RunlightClient } from '@runlight/client';

/**
 * Loads a run's snapshot ahead of rendering (a SvelteKit `load`, with its `fetch`), for
 * `RunlightProvider`'s `snapshots`: the page renders the run's status on the server and the
 * browser hydrates from the same snapshot, then resumes the run's event stream from its cursor
 * — the snapshot crosses the network once. Without a DOM (on a server) the clock offset is
 * dropped: it measures the server's clock, and a browser must not take it for its own. Throws
 * `RunlightClientError` as `client.fetchSnapshot` does.
 *
 * @example
 * // +page.ts
 * export const load = async ({ fetch, params }) => ({ run: await loadRun({ baseUrl: '/api', fetch }, params.id) });
 */
export async function loadRun(
  from: RunlightClient | { baseUrl: string; fetch?: typeof globalThis.fetch },
  runId: string,
): Promise<LoadedSnapshot> {
  const client =
    'fetchSnapshot' in from
      ? from
      : createRunlightClient({
          baseUrl: from.baseUrl,
          ...(from.fetch ? { fetch: from.fetch } : {}),
        });
  const loaded = await client.fetchSnapshot(runId);
  return typeof document === 'undefined' ? { ...loaded, clockOffsetMs: null } : loaded;
}
