import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, SseReader } from './http-test-kit';

/**
 * A bundler may evaluate `@runlight/runtime` twice in one server (Next.js does: a route chunk and
 * a server-action chunk). Handlers made by one copy and a router made by the other must still
 * answer every route under the router's policy: the policy travels with the call, never through
 * a module-level registry one copy cannot see. Built with the package's own build (tsdown), then
 * imported twice under distinct URLs, so each import is its own module instance.
 */
type Runtime = typeof import('../../index');

const packageRoot = fileURLToPath(new URL('../../..', import.meta.url));
let outDir = '';
let copyA: Runtime;
let copyB: Runtime;

beforeAll(async () => {
  // `.scratch/` is ignored by git; inside the package, the build's bare imports resolve.
  const scratch = join(packageRoot, '.scratch');
  await mkdir(scratch, { recursive: true });
  outDir = await mkdtemp(join(scratch, 'two-copies-'));
  await promisify(execFile)('pnpm', ['exec', 'tsdown', '--out-dir', outDir, '--no-dts'], {
    cwd: packageRoot,
  });
  const url = pathToFileURL(join(outDir, 'index.js')).href;
  copyA = await import(/* @vite-ignore */ `${url}?copy=a`);
  copyB = await import(/* @vite-ignore */ `${url}?copy=b`);
}, 120_000);

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

/** Signed in: `Authorization: Bearer ok`. Anyone else gets a 401. */
const authorize = ({ request }: { request: Request }) =>
  request.headers.get('authorization') === 'Bearer ok'
    ? true
    : new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });

const post = (body?: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body ?? {}),
});

/** Every route the router serves, on run `run-1`. */
const ROUTES: [string, string, RequestInit][] = [
  ['snapshot', '/runs/run-1', {}],
  ['events', '/runs/run-1/events', {}],
  ['event', '/runs/run-1/events/1', {}],
  ['history', '/runs/run-1/operations', {}],
  ['cancel', '/runs/run-1/cancel', { method: 'POST' }],
  ['approve', '/runs/run-1/approvals', post({ approvals: [{ approvalId: 'a', approved: true }] })],
  ['start', '/runs', post({ prompt: 'hi' })],
  ['multiplexed-events', '/run-events?run=run-1', {}],
  ['snapshots', '/runs?ids=run-1', {}],
];

/** The status a refused route answers; the many-runs routes refuse per run inside a `200`. */
async function statusOf(name: string, response: Response): Promise<number> {
  if (name === 'snapshots' && response.status === 200) {
    const body = (await response.json()) as { snapshots: unknown[]; forbidden: string[] };
    return body.forbidden.includes('run-1') && body.snapshots.length === 0 ? 401 : 200;
  }
  if (name === 'multiplexed-events' && response.status === 200) {
    const reader = new SseReader(response.body!);
    const first = await reader.nextMessage();
    await reader.cancel();
    return first?.event === 'run-error' ? JSON.parse(first.data).status : 200;
  }
  await response.body?.cancel();
  return response.status;
}

async function serve(routerCopy: Runtime, handlersCopy: Runtime) {
  const store = handlersCopy.createAgentRuntimeStore(handlersCopy.createMemoryDriver());
  await store.createRun({ runId: 'run-1' });
  const hub = new handlersCopy.RunEventHub();
  let started = 0;
  const router = routerCopy.createRunRouter({
    handlers: handlersCopy.createRunHandlers({
      store,
      runtime: hub,
      start: ({ runId }) => {
        started += 1;
        const created = store.createRun({ runId });
        return { done: created, created };
      },
    }),
    multiplex: handlersCopy.createMultiplexHandlers({ store, runtime: hub }),
    basePath: '/api',
    authorize,
  });
  // The node adapter from the router's copy, as an app that imports both from one place.
  const server = await listen(routerCopy.toNodeListener(router));
  return { server, started: () => started };
}

describe.each([
  ['router from copy A, handlers from copy B', () => [copyA, copyB] as const],
  ['router from copy B, handlers from copy A', () => [copyB, copyA] as const],
])('two copies of the runtime in one server: %s', (_, copies) => {
  it.each(ROUTES)('%s serves no run without credentials', async (name, path, init) => {
    const [routerCopy, handlersCopy] = copies();
    const { server, started } = await serve(routerCopy, handlersCopy);
    try {
      const response = await fetch(`${server.origin}/api${path}`, init);
      expect(await statusOf(name, response)).toBe(401);
      expect(started()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('with credentials, the routes answer (the policy was asked, not skipped)', async () => {
    const [routerCopy, handlersCopy] = copies();
    const { server } = await serve(routerCopy, handlersCopy);
    try {
      const headers = { authorization: 'Bearer ok' };
      const snapshot = await fetch(`${server.origin}/api/runs/run-1`, { headers });
      expect(snapshot.status).toBe(200);
      const batch = await fetch(`${server.origin}/api/runs?ids=run-1`, { headers });
      expect(((await batch.json()) as { snapshots: unknown[] }).snapshots).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a path that normalises to a run route is refused 400 bad_path, node adapter and router from different copies', async () => {
    const [routerCopy, handlersCopy] = copies();
    const store = handlersCopy.createAgentRuntimeStore(handlersCopy.createMemoryDriver());
    await store.createRun({ runId: 'run-1' });
    const router = routerCopy.createRunRouter({
      handlers: handlersCopy.createRunHandlers({ store, runtime: new handlersCopy.RunEventHub() }),
      basePath: '/api',
      authorize: 'public',
    });
    // The raw target `createNodeRequest` of the other copy recorded travels with the request.
    const request = handlersCopy.createNodeRequest({
      url: '/api/x/../runs/run-1',
      headers: { host: 'test' },
      method: 'GET',
      socket: {},
    } as never);
    const response = await router(request);
    expect(response?.status).toBe(400);
  });
});

describe('handlers with no policy of their own, called without a router', () => {
  it('refuse every route (fail closed) unless made with authorize: "public"', async () => {
    const store = copyB.createAgentRuntimeStore(copyB.createMemoryDriver());
    await store.createRun({ runId: 'run-1' });
    const hub = new copyB.RunEventHub();
    const closed = copyB.createRunHandlers({ store, runtime: hub });
    const many = copyB.createMultiplexHandlers({ store, runtime: hub });
    const request = () => new Request('http://test/api/runs/run-1');
    expect((await closed.snapshot(request(), 'run-1')).status).toBe(403);
    expect((await closed.history(request(), 'run-1')).status).toBe(403);
    const batch = await many.snapshots(new Request('http://test/api/runs?ids=run-1'));
    expect(((await batch.json()) as { forbidden: string[] }).forbidden).toEqual(['run-1']);
    const open = copyB.createRunHandlers({ store, runtime: hub, authorize: 'public' });
    expect((await open.snapshot(request(), 'run-1')).status).toBe(200);
  });
});
