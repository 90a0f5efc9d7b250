import { type RunServer, serveRunHandlers } from '@runlight/runtime/test-kit';
import { scriptedModel } from '@runlight/runtime/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';

/** Against the real `createRunHandlers` on loopback: a finished run is where a client settles. */
let server: RunServer;
afterEach(() => server?.close());

const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: 30_000, interval: 5 });

async function finishedRun(runId: string) {
  server = await serveRunHandlers();
  const handle = server.runtime.startRun({
    runId,
    model: scriptedModel([{ text: 'All done.' }]),
    messages: [{ role: 'user', content: 'Hello' }],
  });
  expect((await handle.done).status).toBe('completed');
}

const eventRequests = () => server.requests.filter((line) => line.includes('/events'));

describe('a fresh client on a finished run (real handlers on loopback)', () => {
  it('loads the terminal snapshot and ends `closed` with no error and at most one event request', async () => {
    await finishedRun('run-done');
    const client = createRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const store = client.run('run-done');
    const states: string[] = [];
    const unsubscribe = store.subscribe(() => states.push(store.getState().connection));
    store.connect();
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    // Give a reconnect loop every chance to show itself: a few backoff steps of real requests.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const state = store.getState();
    expect(state.connection).toBe('closed');
    expect(state.error).toBeNull();
    expect(state.run?.status).toBe('completed');
    expect(eventRequests().length).toBeLessThanOrEqual(1);
    expect(states).not.toContain('offline');
    expect(states).not.toContain('reconnecting');
    unsubscribe();
  });

  it('a 204 from the event route ends the connection cleanly even when the snapshot was older', async () => {
    await finishedRun('run-204');
    // The client's snapshot arrives from a fetch that answers the run as still running once:
    // the stream's 204 is then what tells it the run has ended.
    let first = true;
    const client = createRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = String(input);
        if (first && !url.includes('/events') && response.ok) {
          first = false;
          const body = (await response.json()) as { run: { status: string } };
          body.run.status = 'running';
          return new Response(JSON.stringify(body), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          });
        }
        return response;
      },
    });
    const store = client.run('run-204');
    store.connect();
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const state = store.getState();
    expect(state.connection).toBe('closed');
    expect(state.error).toBeNull();
    expect(eventRequests()).toHaveLength(1);
  });
});
