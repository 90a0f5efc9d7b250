import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunHandle } from '../../runner/agent-runtime';
import type { Authorize, AuthorizeInput } from '../access/authorize';
import { createHttpFixture, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A runtime's control half that records calls (the routes' contract, not the runner's). */
function fakeControl() {
  const calls: string[] = [];
  const handle = (runId: string): RunHandle => {
    const run = Promise.resolve({ id: runId } as never);
    return { done: run, created: run };
  };
  return {
    calls,
    cancelRun: (runId: string) => void calls.push(`cancel ${runId}`),
    resumeRun: ({ runId }: { runId: string }) => {
      calls.push(`resume ${runId}`);
      return handle(runId);
    },
  };
}

async function fixture(authorize: Authorize, onError = vi.fn()) {
  const control = fakeControl();
  const f = await createHttpFixture({
    authorize,
    onError,
    source: (hub) => ({
      subscribe: (runId, listener) => hub.subscribe(runId, listener),
      liveDeltas: (runId) => hub.liveDeltas(runId),
      cancelRun: control.cancelRun,
      resumeRun: control.resumeRun,
    }),
    start: ({ runId }) => {
      control.calls.push(`start ${runId}`);
      const created = f.store.createRun({ runId });
      return { done: created, created };
    },
  });
  cleanups.push(f.close);
  const run = await ScriptedRun.start(f, 'run-1');
  const getSnapshot = vi.spyOn(f.store, 'getSnapshot');
  const getRun = vi.spyOn(f.store, 'getRun');
  return { ...f, run, control, getSnapshot, getRun, onError };
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Every route, with the action `authorize` must be asked about. */
const routes: [string, string, RequestInit, AuthorizeInput['action']][] = [
  ['snapshot', '/runs/run-1', {}, 'read'],
  ['events', '/runs/run-1/events', {}, 'read'],
  ['cancel', '/runs/run-1/cancel', { method: 'POST' }, 'cancel'],
  [
    'approvals',
    '/runs/run-1/approvals',
    json({ approvals: [{ approvalId: 'a-1', approved: true }] }),
    'approve',
  ],
  ['start', '/runs', json({ prompt: 'hi' }), 'start'],
];

describe('authorize', () => {
  it.each(routes)(
    '%s: false answers 403 forbidden before anything is read or changed',
    async (_, path, init, action) => {
      const seen: AuthorizeInput[] = [];
      const f = await fixture(({ request, runId, action }) => {
        seen.push({ request, runId, action });
        return false;
      });
      const response = await fetch(f.url(path), init);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error: { code: 'forbidden', message: expect.stringContaining(action) },
      });
      expect(seen.map((input) => input.action)).toEqual([action]);
      if (action !== 'start') expect(seen[0]?.runId).toBe('run-1');
      else expect(seen[0]?.runId).toMatch(/^run-[0-9a-f-]{36}$/);
      expect(f.getSnapshot).not.toHaveBeenCalled();
      expect(f.getRun).not.toHaveBeenCalled();
      expect(f.control.calls).toEqual([]);
      expect(f.hub.listenerCount('run-1')).toBe(0);
    },
  );

  it.each(routes)(
    '%s: a Response is sent as is (e.g. 401 with WWW-Authenticate)',
    async (_, path, init) => {
      const f = await fixture(
        () =>
          new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'Sign in' } }), {
            status: 401,
            headers: { 'www-authenticate': 'Bearer', 'content-type': 'application/json' },
          }),
      );
      const response = await fetch(f.url(path), init);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(f.control.calls).toEqual([]);
    },
  );

  it.each(routes)('%s: a throw is a generic 500 and goes to onError', async (_, path, init) => {
    const secret = new Error('session store at redis://10.0.0.3 refused: token=abc');
    const f = await fixture(async () => {
      throw secret;
    });
    const response = await fetch(f.url(path), init);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal', message: 'The server could not answer this request.' },
    });
    expect(text).not.toMatch(/redis|token/);
    expect(f.onError).toHaveBeenCalledWith(secret);
    expect(f.control.calls).toEqual([]);
  });

  it.each(routes)('%s: true lets the request through', async (_, path, init) => {
    const f = await fixture(async () => true);
    const response = await fetch(f.url(path), init);
    expect(response.status).toBeLessThan(300);
    await response.body?.cancel();
  });

  it('bearer token: lets the right token read, refuses another run with 403', async () => {
    const tokens = new Map([['token-a', new Set(['run-1'])]]);
    const f = await fixture(({ request, runId }) => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
      const runs = token ? tokens.get(token) : undefined;
      if (!runs) return new Response(null, { status: 401 });
      return runs.has(runId);
    });
    await ScriptedRun.start(f, 'run-2');
    const as = (token: string | null) =>
      token ? { headers: { authorization: `Bearer ${token}` } } : {};
    expect((await fetch(f.url('/runs/run-1'), as('token-a'))).status).toBe(200);
    expect((await fetch(f.url('/runs/run-2'), as('token-a'))).status).toBe(403);
    expect((await fetch(f.url('/runs/run-1'), as('wrong'))).status).toBe(401);
    expect((await fetch(f.url('/runs/run-1'), as(null))).status).toBe(401);
  });
});
