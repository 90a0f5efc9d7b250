import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCorsPolicy } from '../access/cors';
import { createRunRouter } from '../routes/create-run-router';
import { createHttpFixture, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fixture(options: Parameters<typeof createHttpFixture>[0] = {}) {
  const f = await createHttpFixture(options);
  cleanups.push(f.close);
  return f;
}

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 10));

describe('an ended run', () => {
  it('answers 204 No Content to a cursor at its terminal event (a native EventSource stops)', async () => {
    const f = await fixture();
    const run = await ScriptedRun.start(f, 'run-1');
    await run.complete();
    for (const headers of [
      { 'Last-Event-ID': `${run.revision}` },
      { 'Last-Event-ID': `${run.revision + 5}` },
    ]) {
      const response = await fetch(f.url('/runs/run-1/events'), { headers });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
    }
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });

  it('still streams the events a cursor before the terminal event lacks', async () => {
    const f = await fixture();
    const run = await ScriptedRun.start(f, 'run-1');
    await run.complete();
    const response = await fetch(f.url('/runs/run-1/events'), {
      headers: { 'Last-Event-ID': `${run.revision - 1}` },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`id: ${run.revision}\n`);
  });
});

describe('a client going away', () => {
  it('is not reported to onError, and the body ends without an error', async () => {
    const onError = vi.fn();
    const f = await fixture({ onError });
    await ScriptedRun.start(f, 'run-1');
    const abort = new AbortController();
    const request = new Request(f.url('/runs/run-1/events'), { signal: abort.signal });
    const response = await f.handlers.events(request, 'run-1');
    const reader = response.body!.getReader();
    await reader.read(); // the catch-up
    abort.abort();
    // Hono and other hosts log a body that errors; this one just ends.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    await nextTask();
    expect(onError).not.toHaveBeenCalled();
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });
});

describe('CORS (off unless configured)', () => {
  it('sends no CORS headers without a policy', async () => {
    const f = await fixture();
    await ScriptedRun.start(f, 'run-1');
    const response = await fetch(f.url('/runs/run-1'), {
      headers: { Origin: 'https://app.example' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(f.url('/runs/run-1/events'), {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(405);
  });

  it('answers preflights (Last-Event-ID allowed) and marks responses for allowed origins only', async () => {
    const f = await fixture();
    await ScriptedRun.start(f, 'run-1');
    const route = createRunRouter({
      handlers: f.handlers,
      basePath: '/api',
      authorize: 'public',
      cors: { origin: ['https://app.example'], credentials: true },
    });
    const preflight = await route(
      new Request(f.url('/runs/run-1/events'), {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'last-event-id',
        },
      }),
    );
    expect(preflight?.status).toBe(204);
    expect(preflight?.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight?.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight?.headers.get('access-control-allow-headers')).toMatch(/Last-Event-ID/);
    expect(preflight?.headers.get('access-control-allow-methods')).toMatch(/GET/);

    const allowed = await route(
      new Request(f.url('/runs/run-1'), { headers: { Origin: 'https://app.example' } }),
    );
    expect(allowed?.status).toBe(200);
    expect(allowed?.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed?.headers.get('vary')).toMatch(/Origin/);
    expect(((await allowed!.json()) as { run: { id: string } }).run.id).toBe('run-1');

    const other = await route(
      new Request(f.url('/runs/run-1'), { headers: { Origin: 'https://evil.example' } }),
    );
    expect(other?.headers.get('access-control-allow-origin')).toBeNull();
    const otherPreflight = await route(
      new Request(f.url('/runs/run-1'), {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
      }),
    );
    expect(otherPreflight?.headers.get('access-control-allow-origin')).toBeNull();
    // Not a run route: still the host's.
    expect(await route(new Request(f.url('/other')))).toBeNull();
  });

  it('refuses credentials with the wildcard origin', () => {
    expect(() => createCorsPolicy({ origin: '*', credentials: true })).toThrow(TypeError);
    const policy = createCorsPolicy({ origin: '*' });
    const response = policy.apply(
      new Request('http://x/api/runs/run-1', { headers: { Origin: 'https://a.example' } }),
      Response.json({}),
    );
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
