import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers, type RunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { setRawRequestTarget } from '../routes/request-target';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

function fakeHandlers() {
  const calls: [string, string][] = [];
  const handlers: RunHandlers = {
    snapshot: async (_request, runId) => {
      calls.push(['snapshot', runId]);
      return new Response('snapshot');
    },
    events: async (_request, runId) => {
      calls.push(['events', runId]);
      return new Response('events');
    },
    cancel: async (_request, runId) => {
      calls.push(['cancel', runId]);
      return new Response('cancel');
    },
    approve: async (_request, runId) => {
      calls.push(['approve', runId]);
      return new Response('approve');
    },
    start: async () => {
      calls.push(['start', '']);
      return new Response('start');
    },
    bufferedBytes: () => 0,
    event: async (_request, runId, revision) => {
      calls.push(['event', `${runId}@${revision}`]);
      return new Response('event');
    },
    history: async (_request, runId) => {
      calls.push(['history', runId]);
      return new Response('history');
    },
  };
  return { handlers, calls };
}

const get = (path: string, method = 'GET') => new Request(`http://test${path}`, { method });

describe('createRunRouter', () => {
  it.each([
    ['/api/runs/run-1', 'snapshot', 'run-1'],
    ['/api/runs/run-1/events', 'events', 'run-1'],
    ['/api/runs/run-1/events?after=3', 'events', 'run-1'],
    ['/api/runs/a%3Ab.c~d_e-f', 'snapshot', 'a:b.c~d_e-f'],
    ['/api/runs/run-1/cancel', 'cancel', 'run-1', 'POST'],
    ['/api/runs/run-1/approvals', 'approve', 'run-1', 'POST'],
    ['/api/runs', 'start', '', 'POST'],
    ['/api/runs/run-1/events/12', 'event', 'run-1@12'],
  ])('routes %s to %s(%s)', async (path, handler, runId, method = 'GET') => {
    const { handlers, calls } = fakeHandlers();
    const route = createRunRouter({ handlers, basePath: '/api/', authorize: 'public' });
    const response = await route(get(path, method));
    expect(await response?.text()).toBe(handler);
    expect(calls).toEqual([[handler, runId]]);
  });

  it.each([
    '/runs/run-1',
    '/api/run/run-1',
    '/api/runs/',
    '/api/runs/run-1/',
    '/api/runs/run-1/other',
    '/api/runs/run-1/events/x',
    '/api/runs/run-1/constructor',
    '/api/runs/run-1/__proto__',
    '/apix/runs/run-1',
    '/api/runs',
  ])('leaves %s to the host (null)', async (path) => {
    const { handlers, calls } = fakeHandlers();
    expect(
      await createRunRouter({ handlers, basePath: '/api', authorize: 'public' })(get(path)),
    ).toBeNull();
    expect(calls).toEqual([]);
  });

  it('works without a base path', async () => {
    const { handlers, calls } = fakeHandlers();
    await createRunRouter({ handlers, authorize: 'public' })(get('/runs/x/events'));
    expect(calls).toEqual([['events', 'x']]);
  });

  it.each([
    ['/api/runs/a%20b', 'may only contain'],
    ['/api/runs/%E0%A4%A', 'percent-encoding'],
    [`/api/runs/${'r'.repeat(201)}`, 'at most 200'],
  ])('answers 400 bad_run_id to %s', async (path, message) => {
    const { handlers, calls } = fakeHandlers();
    const response = await createRunRouter({ handlers, basePath: '/api', authorize: 'public' })(
      get(path),
    );
    expect(response?.status).toBe(400);
    const body = await response?.json();
    expect(body.error.code).toBe('bad_run_id');
    expect(body.error.message).toContain(message);
    expect(calls).toEqual([]);
  });

  it.each([
    ['POST', '/api/runs/run-1', 'GET'],
    ['GET', '/api/runs/run-1/cancel', 'POST'],
    ['PUT', '/api/runs/run-1/approvals', 'POST'],
  ])('answers 405 to %s %s with Allow: %s', async (method, path, allow) => {
    const { handlers, calls } = fakeHandlers();
    const response = await createRunRouter({ handlers, basePath: '/api', authorize: 'public' })(
      get(path, method),
    );
    expect(response?.status).toBe(405);
    expect(response?.headers.get('allow')).toBe(allow);
    expect(calls).toEqual([]);
  });

  it('answers 405 with Allow: GET to another method on a run route', async () => {
    const { handlers } = fakeHandlers();
    const snapshot = vi.spyOn(handlers, 'snapshot');
    const response = await createRunRouter({ handlers, authorize: 'public' })(
      get('/runs/run-1', 'DELETE'),
    );
    expect(response?.status).toBe(405);
    expect(response?.headers.get('allow')).toBe('GET');
    expect((await response!.json()).error.code).toBe('method_not_allowed');
    expect(snapshot).not.toHaveBeenCalled();
  });
});

describe('createRunRouter: paths are matched exactly as sent', () => {
  /** A Request whose raw target is `target`, as `createNodeRequest` records it. */
  const raw = (target: string, method = 'GET') => {
    const request = new Request(new URL(target, 'http://test'), { method });
    setRawRequestTarget(request, target);
    return request;
  };

  it.each([
    '/api/x/../runs/secret',
    '/api/runs/./secret',
    '/api/runs/secret/./events',
    '/api/runs/x/../secret',
    '/api/x/%2e%2e/runs/secret',
    '/api/x/.%2E/runs/secret',
    '/api//runs/secret',
    '/api/runs//secret',
    '/api/runs/a%2Fb/events',
    '/api/runs/a%2fb',
    '/api/runs/a%5Cb',
    '/api/x\\..\\runs/secret',
    '/api/runs/secret/events/..',
    // An encoded slash right after `runs` is a run route once decoded (`/api/runs/secret`).
    '/api/runs%2Fsecret',
    '/api/runs%2fsecret/events',
    '/api/runs%5Csecret',
    '/api%2Fruns%2Fsecret',
  ])('refuses %s with 400 bad_path and calls no handler', async (target) => {
    const { handlers, calls } = fakeHandlers();
    const response = await createRunRouter({ handlers, basePath: '/api', authorize: 'public' })(
      raw(target),
    );
    expect(response?.status).toBe(400);
    expect((await response!.json()).error.code).toBe('bad_path');
    expect(calls).toEqual([]);
  });

  it('leaves odd paths that are not run routes under any reading to the host', async () => {
    const { handlers } = fakeHandlers();
    const route = createRunRouter({ handlers, basePath: '/api', authorize: 'public' });
    expect(await route(raw('/assets/../index.html'))).toBeNull();
    expect(await route(raw('/other//x'))).toBeNull();
  });

  it('does not serve /api/x/../runs/secret past a prefix auth check like Express (node:http)', async () => {
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(createMemoryDriver());
    await store.createRun({ runId: 'secret' });
    const route = createRunRouter({
      handlers: createRunHandlers({ store, runtime: hub }),
      basePath: '/api',
      authorize: 'public',
    });
    const listener = toNodeListener(route);
    // The host's own guard, as `app.use('/api/runs', requireAuth)` matches: on the raw path.
    const server = await listen((request, response, next) => {
      if (request.url?.startsWith('/api/runs') && request.headers.authorization !== 'yes') {
        response.writeHead(401).end();
        return;
      }
      listener(request, response, next);
    });
    try {
      const send = (target: string, headers: Record<string, string> = {}) =>
        new Promise<number>((resolve, reject) => {
          // fetch() would normalise the path itself; a raw request sends it as written.
          const { hostname, port } = new URL(server.origin);
          const request = httpRequest({ hostname, port, path: target, headers }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          request.on('error', reject);
          request.end();
        });
      expect(await send('/api/runs/secret')).toBe(401);
      expect(await send('/api/runs/secret', { authorization: 'yes' })).toBe(200);
      expect(await send('/api/x/../runs/secret')).toBe(400);
      expect(await send('/api/x/%2e%2e/runs/secret')).toBe(400);
      expect(await send('/api//runs/secret')).toBe(400);
      expect(await send('/api/./runs/secret/events')).toBe(400);
    } finally {
      await server.close();
    }
  });
});

describe('createRunRouter: characters that change what a path means (real HTTP, raw targets)', () => {
  /** Sends `GET <target>` as written (no client-side normalisation) and reads the answer. */
  const rawGet = (origin: string, target: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(origin);
      const socket = connect(Number(port), hostname, () => {
        socket.write(`GET ${target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('error', reject);
      socket.on('end', () => {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
        resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
      });
    });

  it.each([
    '/api/runs/run-a#/../run-b',
    '/api/runs/run-a#x',
    '/api/runs/run-a?/../run-b',
    '/api/runs/run-a?x=/../../run-b',
    '/api/runs/run-a%3F/../run-b',
    '/api/runs/run-a%23/../run-b',
    '/api/runs/run-a%3f..%2frun-b',
    '/api/runs/run-a/..%2Frun-b',
    '/api/runs/run-a/%2E%2E/run-b',
    '/api/runs/run-a\\..\\run-b',
  ])('GET %s is refused 400 bad_path, never answered with a run', async (target) => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    await store.createRun({ runId: 'run-a' });
    await store.createRun({ runId: 'run-b' });
    const route = createRunRouter({
      handlers: createRunHandlers({ store, runtime: new RunEventHub(), authorize: 'public' }),
      basePath: '/api',
      authorize: 'public',
    });
    const server = await listen(toNodeListener(route));
    try {
      expect((await rawGet(server.origin, '/api/runs/run-a')).status).toBe(200);
      const answer = await rawGet(server.origin, target);
      expect(answer.status).toBe(400);
      expect(answer.body).not.toContain('"runId"');
      // Node's own parser may refuse some targets first (a plain 400); ours says bad_path.
      if (answer.body.includes('"error"')) expect(answer.body).toContain('bad_path');
    } finally {
      await server.close();
    }
  });
});
