import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toNodeListener, type WebHandler } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function serve(handler: WebHandler, options?: Parameters<typeof toNodeListener>[1]) {
  const server = await listen(toNodeListener(handler, options));
  cleanups.push(server.close);
  return server.origin;
}

describe('toNodeListener', () => {
  it('hands the handler a Web Request with URL, method, headers and body', async () => {
    let seen: { url: string; method: string; header: string | null; body: string } | undefined;
    const origin = await serve(async (request) => {
      seen = {
        url: request.url,
        method: request.method,
        header: request.headers.get('x-trace'),
        body: await request.text(),
      };
      return new Response('ok');
    });
    const response = await fetch(`${origin}/a/b?c=1`, {
      method: 'POST',
      headers: { 'x-trace': 't-1' },
      body: 'hello',
    });
    expect(await response.text()).toBe('ok');
    expect(seen).toEqual({
      url: `${origin}/a/b?c=1`,
      method: 'POST',
      header: 't-1',
      body: 'hello',
    });
  });

  it('writes status, headers (every Set-Cookie) and body', async () => {
    const origin = await serve(() => {
      const headers = new Headers({ 'content-type': 'text/plain', 'x-one': '1' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return new Response('created', { status: 201, headers });
    });
    const response = await fetch(origin);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-one')).toBe('1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('created');
  });

  it('answers 404 not_found when the handler returns null and there is no next', async () => {
    const origin = await serve(() => null);
    const response = await fetch(origin);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
  });

  it('passes an unmatched request to next (Connect / Vite middleware)', async () => {
    const listener = toNodeListener(() => null);
    const server = createServer((request, response) =>
      listener(request, response, () => response.end('from next')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('from next');
  });

  it('turns a thrown error into a generic 500 and reports it', async () => {
    const onError = vi.fn();
    const origin = await serve(
      () => {
        throw new Error('secret internals');
      },
      { onError },
    );
    const response = await fetch(origin);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('secret');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('aborts the request signal and cancels the body when the client goes away', async () => {
    const aborted = vi.fn();
    const cancelled = vi.fn();
    const origin = await serve((request) => {
      request.signal.addEventListener('abort', aborted);
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode('first')),
        cancel: cancelled,
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const abort = new AbortController();
    const response = await fetch(origin, { signal: abort.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    abort.abort();
    await vi.waitFor(() => {
      expect(aborted).toHaveBeenCalled();
      expect(cancelled).toHaveBeenCalled();
    });
  });
});
