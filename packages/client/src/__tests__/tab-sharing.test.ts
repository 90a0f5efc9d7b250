import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import { defaultTabEnvironment } from '../tabs/tab-environment';
import { shareTabs } from '../tabs/tab-shared-fetch';
import { FakeBrowser } from './fake-tabs';

const BASE = 'http://app.test/api';

/** A server that counts event-stream requests and answers each with one idle open stream. */
function countingServer() {
  const streams: { url: string; headers: Headers; signal: AbortSignal | undefined }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    if (!url.endsWith('/events')) return new Response('{}', { status: 200 });
    streams.push({ url, headers: new Headers(init?.headers), signal: init?.signal ?? undefined });
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode(': open\n\n'));
        init?.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  const open = () => streams.filter((stream) => !stream.signal?.aborted);
  return { fetch, streams, open };
}

const settle = async () => {
  for (let turn = 0; turn < 6; turn++) await new Promise((resolve) => setImmediate(resolve));
};

const aborts: AbortController[] = [];
afterEach(() => {
  for (const abort of aborts.splice(0)) abort.abort();
});

function watch(fetch: typeof globalThis.fetch, runId: string, headers: HeadersInit = {}) {
  const abort = new AbortController();
  aborts.push(abort);
  const response = fetch(`${BASE}/runs/${runId}/events`, {
    headers: { ...headers, 'last-event-id': '3' },
    signal: abort.signal,
  });
  return { response, abort };
}

describe('shareTabs: who shares, who keeps its own stream', () => {
  it('tabs with the same requests share one stream per run', async () => {
    const server = countingServer();
    const browser = new FakeBrowser();
    const tabs = [browser.open(), browser.open(), browser.open()].map((tab) =>
      shareTabs({ baseUrl: BASE, fetch: server.fetch, environment: tab.environment }),
    );
    const answers = tabs.map((fetch) => watch(fetch, 'run-1').response);
    await settle();
    browser.deliver();
    await settle();
    browser.deliver();
    await settle();
    expect((await Promise.all(answers)).map((response) => response.status)).toEqual([
      200, 200, 200,
    ]);
    expect(server.open()).toHaveLength(1);
  });

  it('tabs with different headers (another user, another token) do not share', async () => {
    const server = countingServer();
    const browser = new FakeBrowser();
    const [a, b] = [browser.open(), browser.open()].map((tab) =>
      shareTabs({ baseUrl: BASE, fetch: server.fetch, environment: tab.environment }),
    );
    const first = watch(a!, 'run-1', { authorization: 'Bearer alice' }).response;
    const second = watch(b!, 'run-1', { authorization: 'Bearer bob' }).response;
    for (let round = 0; round < 3; round++) {
      await settle();
      browser.deliver();
    }
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // Each group reads its own stream, with its own credentials.
    expect(
      server
        .open()
        .map((stream) => stream.headers.get('authorization'))
        .sort(),
    ).toEqual(['Bearer alice', 'Bearer bob']);
  });

  it('without BroadcastChannel and Web Locks (environment null) every request is its own', async () => {
    const server = countingServer();
    const fetch = shareTabs({ baseUrl: BASE, fetch: server.fetch, environment: null });
    await Promise.all([watch(fetch, 'run-1').response, watch(fetch, 'run-1').response]);
    expect(server.open()).toHaveLength(2);
    // The cursor reaches the server as the store sent it.
    expect(server.streams[0]?.headers.get('last-event-id')).toBe('3');
  });

  it('is off outside a page: Node has BroadcastChannel, but no document', () => {
    expect(defaultTabEnvironment()).toBeNull();
  });

  it('passes every other request through untouched', async () => {
    const server = countingServer();
    const browser = new FakeBrowser();
    const fetch = shareTabs({
      baseUrl: BASE,
      fetch: server.fetch,
      environment: browser.open().environment,
    });
    const response = await fetch(`${BASE}/runs/run-1`);
    expect(await response.json()).toEqual({});
    expect(server.streams).toHaveLength(0);
  });

  it('a client with its own fetch does not share unless told to', async () => {
    const server = countingServer();
    const client = createRunlightClient({ baseUrl: BASE, fetch: server.fetch });
    expect(client.requests.fetch).toBe(server.fetch);
  });

  it('a shared stream that sends nothing for 45 s (not even a ping) breaks off for every tab', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const server = countingServer();
      const browser = new FakeBrowser();
      const fetch = shareTabs({
        baseUrl: BASE,
        fetch: server.fetch,
        environment: browser.open().environment,
      });
      const response = await watch(fetch, 'run-1').response;
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(': open\n\n');
      const next = reader.read();
      await vi.advanceTimersByTimeAsync(44_999);
      await settle();
      let settled = false;
      void next.then(
        () => (settled = true),
        () => (settled = true),
      );
      await settle();
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await expect(next).rejects.toThrow(/not even a ping/);
    } finally {
      vi.useRealTimers();
    }
  });
});
