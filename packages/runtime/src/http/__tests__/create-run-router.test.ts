import { describe, expect, it, vi } from 'vitest';
import type { RunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../create-run-router';

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
  ])('routes GET %s to %s(%s)', async (path, handler, runId) => {
    const { handlers, calls } = fakeHandlers();
    const route = createRunRouter({ handlers, basePath: '/api/' });
    const response = await route(get(path));
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
    '/apix/runs/run-1',
  ])('leaves %s to the host (null)', async (path) => {
    const { handlers, calls } = fakeHandlers();
    expect(await createRunRouter({ handlers, basePath: '/api' })(get(path))).toBeNull();
    expect(calls).toEqual([]);
  });

  it('works without a base path', async () => {
    const { handlers, calls } = fakeHandlers();
    await createRunRouter({ handlers })(get('/runs/x/events'));
    expect(calls).toEqual([['events', 'x']]);
  });

  it.each([
    ['/api/runs/a%20b', 'may only contain'],
    ['/api/runs/a%2Fb/events', 'may only contain'],
    ['/api/runs/%E0%A4%A', 'percent-encoding'],
    [`/api/runs/${'r'.repeat(201)}`, 'at most 200'],
  ])('answers 400 bad_run_id to %s', async (path, message) => {
    const { handlers, calls } = fakeHandlers();
    const response = await createRunRouter({ handlers, basePath: '/api' })(get(path));
    expect(response?.status).toBe(400);
    const body = await response?.json();
    expect(body.error.code).toBe('bad_run_id');
    expect(body.error.message).toContain(message);
    expect(calls).toEqual([]);
  });

  it('answers 405 with Allow: GET to another method on a run route', async () => {
    const { handlers } = fakeHandlers();
    const snapshot = vi.spyOn(handlers, 'snapshot');
    const response = await createRunRouter({ handlers })(get('/runs/run-1', 'DELETE'));
    expect(response?.status).toBe(405);
    expect(response?.headers.get('allow')).toBe('GET');
    expect((await response!.json()).error.code).toBe('method_not_allowed');
    expect(snapshot).not.toHaveBeenCalled();
  });
});
