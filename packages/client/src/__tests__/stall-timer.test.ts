import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeServer, fakeClient, startedRun } from './fake-server';

afterEach(() => {
  vi.useRealTimers();
});

/**
 * The events request held unanswered, as the browser holds one queued behind its six
 * connections per host: the test answers it when it chooses.
 */
function heldEventsServer() {
  const server = new FakeServer(startedRun());
  const held: { signal: AbortSignal | undefined; answer: () => void }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (!String(input).endsWith('/events')) return server.fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? undefined;
      signal?.addEventListener('abort', () => reject(signal.reason));
      held.push({ signal, answer: () => resolve(server.fetch(input, init)) });
    });
  };
  return { server, held, fetch };
}

describe('the stall timer (issue 48)', () => {
  it('counts from the stream’s answer, not from the request: a queued request is never aborted as stalled', async () => {
    vi.useFakeTimers();
    const { server, held, fetch } = heldEventsServer();
    const client = fakeClient(server, { fetch, stallTimeoutMs: 45_000 });
    const store = client.run('run-1');
    const unsubscribe = store.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(0);
    expect(held).toHaveLength(1);
    // Far past the stall timeout with the request still unanswered (queued in the browser).
    await vi.advanceTimersByTimeAsync(200_000);
    expect(held).toHaveLength(1);
    expect(held[0]!.signal?.aborted).toBe(false);
    expect(store.getState().error).toBeNull();
    expect(store.getState().connection).not.toBe('live');

    held[0]!.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    // From the answer on, the stall clock runs: silence for the timeout drops the stream.
    await vi.advanceTimersByTimeAsync(45_000);
    expect(server.connections[0]!.closed).toBe(true);
    expect(store.getState().error?.message).toMatch(/sent nothing, not even a heartbeat/);
    unsubscribe();
    store.disconnect();
  });
});
