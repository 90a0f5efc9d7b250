import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import type { RunHandle } from '../../runner/agent-runtime';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { RunAccessPolicy } from '../access/access-policy';
import { AccessPolicyError } from '../access/access-policy-error';
import type { Authorize, AuthorizeInput } from '../access/authorize';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { setRawRequestTarget } from '../routes/request-target';
import { RUN_ROUTES, type RunRoute, type RunRouteName } from '../routes/run-routes';
import { toNodeListener } from '../routes/to-node-listener';
import { listen, publishingDriver, ScriptedRun, SseReader } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * How to call each route on run `run-1`. Typed by `RunRouteName`: a route added to the table
 * without a request here does not compile, and the tests below iterate the router's own table.
 */
const REQUESTS: Record<RunRouteName, { path: string; init: RequestInit }> = {
  start: { path: '/runs', init: json({ prompt: 'hi' }) },
  snapshots: { path: '/runs?ids=run-1', init: {} },
  snapshot: { path: '/runs/run-1', init: {} },
  events: { path: '/runs/run-1/events', init: {} },
  event: { path: '/runs/run-1/events/1', init: {} },
  history: { path: '/runs/run-1/operations', init: {} },
  cancel: { path: '/runs/run-1/cancel', init: { method: 'POST' } },
  approve: {
    path: '/runs/run-1/approvals',
    init: json({ approvals: [{ approvalId: 'a-1', approved: true }] }),
  },
  'multiplexed-events': { path: '/run-events?run=run-1', init: {} },
};

/** Every store read and control call, in order, beside every policy question. */
type LogEntry = string;

/** A store whose every call (after `record()`) is logged: the spy of "touched the store". */
function spyStore(store: AgentRuntimeStore, log: LogEntry[]) {
  let recording = false;
  const spied = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (recording) log.push(`store ${String(key)}`);
        return value.apply(target, args);
      };
    },
  });
  const record = () => {
    recording = true;
  };
  return { spied, record };
}

/**
 * The router over handlers and multiplex handlers on a spied store, with `run-1` running. The
 * policies get the log the store spy writes, so their order is one sequence.
 */
async function serve(
  authorize: (log: LogEntry[]) => RunAccessPolicy,
  own: { run?: (log: LogEntry[]) => Authorize; many?: (log: LogEntry[]) => Authorize } = {},
) {
  const log: LogEntry[] = [];
  const hub = new RunEventHub();
  const { driver } = publishingDriver(createMemoryDriver(), hub);
  const store = createAgentRuntimeStore(driver);
  const run = await ScriptedRun.start({ store, hub }, 'run-1');
  await run.startOperation();
  const { spied, record } = spyStore(store, log);
  const handle = (runId: string): RunHandle => {
    const done = store.getRun(runId);
    return { done, created: done };
  };
  const runtime = {
    subscribe: hub.subscribe.bind(hub),
    liveDeltas: hub.liveDeltas.bind(hub),
    cancelRun: (runId: string) => void log.push(`control cancel ${runId}`),
    resumeRun: ({ runId }: { runId: string }) => {
      log.push(`control resume ${runId}`);
      return handle(runId);
    },
  };
  const handlers = createRunHandlers({
    store: spied,
    runtime,
    ...(own.run ? { authorize: own.run(log) } : {}),
    start: ({ runId }) => {
      log.push('control start');
      const created = store.createRun({ runId });
      return { done: created, created };
    },
  });
  const multiplex = createMultiplexHandlers({
    store: spied,
    runtime,
    ...(own.many ? { authorize: own.many(log) } : {}),
  });
  const router = createRunRouter({
    handlers,
    multiplex,
    basePath: '/api',
    authorize: authorize(log),
  });
  const server = await listen(toNodeListener(router));
  cleanups.push(() => server.close());
  record();
  const call = (name: RunRouteName) =>
    fetch(`${server.origin}/api${REQUESTS[name].path}`, REQUESTS[name].init);
  return { router, log, call, hub, run };
}

/** A policy named `who` that logs each question into the shared log and answers `verdict`. */
const logging =
  (who: string, verdict: (input: AuthorizeInput) => boolean | Response) =>
  (log: LogEntry[]): Authorize =>
  (input) => {
    log.push(`${who} ${input.action} ${input.action === 'start' ? 'new' : input.runId}`);
    return verdict(input);
  };

/** What a refused route answers: its own status, or the per-run refusal inside a 200. */
async function refusalOf(name: RunRouteName, response: Response): Promise<number> {
  if (name === 'snapshots') {
    expect(response.status).toBe(200);
    const body = (await response.json()) as { snapshots: unknown[]; forbidden: string[] };
    expect(body).toMatchObject({ snapshots: [], forbidden: ['run-1'] });
    return 403;
  }
  if (name === 'multiplexed-events') {
    expect(response.status).toBe(200);
    const messages = await new SseReader(response.body!).rest();
    expect(messages.map((message) => [message.event, JSON.parse(message.data)])).toEqual([
      ['run-error', { runId: 'run-1', status: 403, code: 'forbidden' }],
    ]);
    return 403;
  }
  await response.body?.cancel();
  return response.status;
}

describe('one access policy for every route the router serves', () => {
  it('the router serves exactly the routes of its table, the multiplexed ones included', async () => {
    const { router } = await serve(() => 'public');
    expect(router.routes).toEqual(RUN_ROUTES);
    expect(new Set(router.routes.map((route) => route.name)).size).toBe(RUN_ROUTES.length);
  });

  it.each(RUN_ROUTES.map((route): [RunRouteName, RunRoute] => [route.name, route]))(
    '%s: the router’s authorize is asked with the route’s action before the store is touched; false refuses',
    async (name, route) => {
      const f = await serve(logging('router', () => false));
      const response = await f.call(name);
      expect(await refusalOf(name, response)).toBe(403);
      const subject = name === 'start' ? 'new' : 'run-1';
      expect(f.log).toEqual([`router ${route.action} ${subject}`]);
      expect(f.hub.listenerCount('run-1')).toBe(0);
    },
  );

  it.each(RUN_ROUTES.map((route): [RunRouteName, RunRoute] => [route.name, route]))(
    '%s: allowed, the policy is still asked first, then the route answers',
    async (name, route) => {
      const f = await serve(logging('router', () => true));
      const response = await f.call(name);
      expect(response.status).toBeLessThan(300);
      await response.body?.cancel();
      expect(f.log[0]).toBe(`router ${route.action} ${name === 'start' ? 'new' : 'run-1'}`);
      expect(f.log.length).toBeGreaterThan(1); // it did read the store (or call the runtime) after
    },
  );

  it.each(RUN_ROUTES.map((route): [RunRouteName, RunRoute] => [route.name, route]))(
    '%s: a handlers object’s own authorize is asked after the router’s; both must allow',
    async (name, route) => {
      const own = {
        run: logging('own', () => false),
        many: logging('own', () => false),
      };
      const refusedByOwn = await serve(
        logging('router', () => true),
        own,
      );
      const subject = name === 'start' ? 'new' : 'run-1';
      expect(await refusalOf(name, await refusedByOwn.call(name))).toBe(403);
      expect(refusedByOwn.log).toEqual([
        `router ${route.action} ${subject}`,
        `own ${route.action} ${subject}`,
      ]);

      const refusedByRouter = await serve(
        logging('router', () => false),
        own,
      );
      expect(await refusalOf(name, await refusedByRouter.call(name))).toBe(403);
      expect(refusedByRouter.log).toEqual([`router ${route.action} ${subject}`]);
    },
  );

  it("'public' serves on purpose (no warning), and the handlers' own authorize still applies", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const f = await serve(() => 'public', {
        run: logging('own', () => false),
        many: logging('own', () => false),
      });
      expect((await f.call('snapshot')).status).toBe(403);
      expect(f.log).toEqual(['own read run-1']);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('no policy at all is never a default: the router is not built (AccessPolicyError)', () => {
    const handlers = createRunHandlers({
      store: createAgentRuntimeStore(createMemoryDriver()),
      runtime: new RunEventHub(),
    });
    const built = (options: object) => () =>
      createRunRouter({ handlers, ...options } as Parameters<typeof createRunRouter>[0]);
    expect(built({})).toThrow(expect.objectContaining({ problem: 'missing' }));
    expect(built({ authorize: true })).toThrow(expect.objectContaining({ problem: 'invalid' }));
    // A handlers object's own policy is optional, but what is given must be one.
    const store = createAgentRuntimeStore(createMemoryDriver());
    const own = { store, runtime: new RunEventHub(), authorize: 'yes' } as never;
    expect(() => createRunHandlers(own)).toThrow(expect.objectContaining({ problem: 'invalid' }));
    expect(() => createMultiplexHandlers(own)).toThrow(
      expect.objectContaining({ problem: 'invalid' }),
    );
    try {
      built({})();
    } catch (error) {
      expect(AccessPolicyError.isInstance(error)).toBe(true);
      expect(String(error)).toMatch(/needs `authorize`.*'public'/s);
    }
  });
});

describe('no route open by omission (authorize on createRunHandlers only, as older snippets show)', () => {
  const bearer: Authorize = ({ request }) =>
    request.headers.get('authorization') === 'Bearer ok'
      ? true
      : new Response(null, { status: 401 });

  async function many(options: { router?: RunAccessPolicy; manyOwn?: Authorize }) {
    const store = createAgentRuntimeStore(createMemoryDriver());
    await store.createRun({ runId: 'run-1' });
    const hub = new RunEventHub();
    const router = createRunRouter({
      handlers: createRunHandlers({ store, runtime: hub, authorize: bearer }),
      multiplex: createMultiplexHandlers({
        store,
        runtime: hub,
        ...(options.manyOwn ? { authorize: options.manyOwn } : {}),
      }),
      basePath: '/api',
      ...(options.router ? { authorize: options.router } : {}),
    } as Parameters<typeof createRunRouter>[0]);
    const server = await listen(toNodeListener(router));
    cleanups.push(() => server.close());
    return server.origin;
  }

  it('without a router policy, the router is not built: run-events and runs?ids= never serve', async () => {
    await expect(many({})).rejects.toSatisfy(
      (error) => AccessPolicyError.isInstance(error) && error.problem === 'missing',
    );
  });

  it("a 'public' router over them is refused too: the many-runs routes would serve what the run routes refuse", async () => {
    await expect(many({ router: 'public' })).rejects.toSatisfy(
      (error) => AccessPolicyError.isInstance(error) && error.problem === 'uneven',
    );
  });

  it('with the policy on both handlers, run-events and runs?ids= ask it: no run without credentials', async () => {
    const origin = await many({ router: 'public', manyOwn: bearer });
    const batch = await fetch(`${origin}/api/runs?ids=run-1`);
    expect(await batch.json()).toMatchObject({ snapshots: [], forbidden: ['run-1'] });
    const stream = await fetch(`${origin}/api/run-events?run=run-1`);
    const messages = await new SseReader(stream.body!).rest();
    expect(messages.map((message) => [message.event, JSON.parse(message.data)])).toEqual([
      ['run-error', { runId: 'run-1', status: 401, code: 'unauthorized' }],
    ]);
    expect((await fetch(`${origin}/api/runs/run-1`)).status).toBe(401);
  });
});

describe('paths that normalise to a route', () => {
  it('/api/x/../run-events is refused 400 bad_path when the router serves run-events, left to the host when not', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const hub = new RunEventHub();
    const handlers = createRunHandlers({ store, runtime: hub });
    const target = '/api/x/../run-events?run=run-1';
    const request = () => {
      const built = new Request(new URL(target, 'http://test'));
      setRawRequestTarget(built, target);
      return built;
    };
    const multiplex = createMultiplexHandlers({ store, runtime: hub });
    const served = createRunRouter({ handlers, multiplex, basePath: '/api', authorize: 'public' });
    const response = await served(request());
    expect(response?.status).toBe(400);
    expect((await response!.json()).error.code).toBe('bad_path');
    const without = createRunRouter({ handlers, basePath: '/api', authorize: 'public' });
    expect(await without(request())).toBeNull();
  });
});

describe('CORS on every route the router serves', () => {
  it.each(RUN_ROUTES.map((route): [RunRouteName, RunRoute] => [route.name, route]))(
    '%s: the preflight is answered and the response carries the CORS headers',
    async (name, route) => {
      const hub = new RunEventHub();
      const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
      const run = await ScriptedRun.start({ store, hub }, 'run-1');
      await run.startOperation();
      const router = createRunRouter({
        handlers: createRunHandlers({
          store,
          runtime: {
            ...hub,
            subscribe: hub.subscribe.bind(hub),
            liveDeltas: hub.liveDeltas.bind(hub),
            cancelRun: () => {},
            resumeRun: () => ({ done: store.getRun('run-1'), created: store.getRun('run-1') }),
          },
          start: ({ runId }) => {
            const created = store.createRun({ runId });
            return { done: created, created };
          },
        }),
        multiplex: createMultiplexHandlers({ store, runtime: hub }),
        basePath: '/api',
        authorize: () => true,
        cors: { origin: 'https://app.example' },
      });
      const server = await listen(toNodeListener(router));
      cleanups.push(() => server.close());
      const url = `${server.origin}/api${REQUESTS[name].path}`;
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': route.method,
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(preflight.headers.get('access-control-allow-methods')).toContain(route.method);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      const init = REQUESTS[name].init;
      const response = await fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), origin: 'https://app.example' },
      });
      expect(response.status).toBeLessThan(300);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
      await response.body?.cancel();
    },
  );
});
