import { type RunServer, serveRunHandlers } from '@runlight/runtime/test-kit';
import { scriptedModel } from '@runlight/runtime/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMultiplexedRunlightClient } from '../multiplex/create-multiplexed-client';

/** Real `createRunHandlers` + `createMultiplexHandlers` on loopback; one run cannot be read. */
let server: RunServer;
afterEach(() => server?.close());

const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: 30_000, interval: 5 });

describe('batched snapshots isolate a broken run (real handlers on loopback)', () => {
  it('GET …/runs?ids=ok,bad: `bad` shows an error, `ok` loads and settles', async () => {
    server = await serveRunHandlers({
      multiplex: {},
      reads: (store) => ({
        getRun: (runId) => store.getRun(runId),
        readEvents: (runId, options) => store.readEvents(runId, options),
        getSnapshot: async (runId) => {
          if (runId === 'bad') throw new SyntaxError('stored record does not parse');
          return store.getSnapshot(runId);
        },
      }),
    });
    for (const runId of ['ok', 'bad']) {
      const handle = server.runtime.startRun({
        runId,
        model: scriptedModel([{ text: `answer of ${runId}` }]),
        messages: [{ role: 'user', content: 'Go' }],
      });
      await handle.done;
    }
    const client = createMultiplexedRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const ok = client.run('ok');
    const bad = client.run('bad');
    ok.connect();
    bad.connect();
    await waitFor(() => {
      expect(ok.getState().run?.status).toBe('completed');
      expect(bad.getState().error).not.toBeNull();
    });
    expect(ok.getState().error).toBeNull();
    expect(bad.getState().run).toBeNull();
    expect(bad.getState().error).toMatchObject({ kind: 'http', status: 500 });
    // One batched request carried both runs.
    expect(server.requests.some((line) => /\/runs\?ids=(ok,bad|bad,ok)$/.test(line))).toBe(true);
  });
});
