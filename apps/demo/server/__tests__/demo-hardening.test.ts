import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../start-demo-server';

let server: DemoServer;
let base: string;

beforeAll(async () => {
  server = await startDemoServer({ port: 0, log: () => {}, app: false });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

const startBody = JSON.stringify({ scenario: 'quick-answer' });

/** A raw request (fetch would not let us set Host, nor send a path unnormalised). */
function raw(options: {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname: '127.0.0.1',
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('playground hardening', () => {
  it('refuses a state-changing POST from a page on another origin', async () => {
    for (const [path, body] of [
      ['/api/demo/runs', startBody],
      ['/api/demo/settings', '{"latencyMs":0}'],
      ['/api/demo/runs/some-run/cancel', '{}'],
    ] as const) {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
        body,
      });
      expect(response.status, path).toBe(403);
      expect((await response.json()).error.code).toBe('forbidden');
    }
    // The same request from the playground's own origin works.
    const own = await fetch(`${base}/api/demo/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://localhost:${server.port}` },
      body: startBody,
    });
    expect(own.status).toBe(201);
  });

  it('refuses a text/plain body (a form or no-preflight fetch) with 415', async () => {
    const response = await fetch(`${base}/api/demo/runs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: startBody,
    });
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe('unsupported_media_type');
  });

  it('refuses an unknown Host on every /api request (DNS rebinding)', async () => {
    for (const [method, path] of [
      ['GET', '/api/demo/settings'],
      ['GET', '/api/runs/x'],
      ['POST', '/api/demo/runs'],
    ] as const) {
      const answer = await raw({
        method,
        path,
        headers: { host: `rebound.example:${server.port}`, 'content-type': 'application/json' },
        body: method === 'POST' ? startBody : undefined,
      });
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
    const ok = await raw({
      path: '/api/demo/settings',
      headers: { host: `localhost:${server.port}` },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a 200 MiB body after reading at most the 16 KiB limit (counted in bytes)', async () => {
    let produced = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const total = 200 * 1024 * 1024;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= total) {
          controller.close();
          return;
        }
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${base}/api/demo/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('body_too_large');
    // The server read ~16 KiB; the rest of what the client produced sat in socket buffers.
    expect(produced).toBeLessThan(16 * 1024 * 1024);
    // Multi-byte characters count as bytes: 6,000 "€" are 18,000 bytes > 16 KiB.
    const euros = await fetch(`${base}/api/demo/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latencyMs: 0, pad: '€'.repeat(6_000) }),
    });
    expect(euros.status).toBe(413);
  });

  it('gives runs unguessable, crypto-random ids', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${base}/api/demo/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: startBody,
      });
      ids.add(((await response.json()) as { runId: string }).runId);
    }
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^quick-answer-[A-Za-z0-9_-]{22}$/);
  });

  it('serves the library control routes: POST /api/runs/:id/cancel', async () => {
    const started = await fetch(`${base}/api/demo/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scenario: 'slow-first-token' }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const cancel = await fetch(`${base}/api/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(202);
  });

  it('does not serve the server sources, nor paths that normalise into them', async () => {
    for (const path of [
      '/server/demo-api.ts',
      '/src/../server/demo-api.ts',
      '/%73erver/main.ts',
      '/@fs/etc/passwd',
    ]) {
      expect((await raw({ path })).status, path).toBe(404);
    }
    expect((await raw({ path: '/api/x/../runs/whatever' })).status).toBe(400);
  });
});
