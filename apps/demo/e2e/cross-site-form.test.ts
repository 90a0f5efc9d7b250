import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './playground-page';

/**
 * A cookie session as the guides set it up (`document.cookie = 'session=dev'`, the stand-in
 * policy that checks only the session) and another site's page that submits a
 * `<form method=POST>` to the cancel route. The app is on `127.0.0.1`, the other site on
 * `localhost`: two sites, so the browser's cookie rules and `Sec-Fetch-Site` act as they would
 * for `evil.example` against `app.example`.
 */
const signedIn: Authorize = ({ request }) =>
  /(?:^|;\s*)session=dev(?:;|$)/.test(request.headers.get('cookie') ?? '')
    ? true
    : Response.json({ error: { code: 'unauthorized', message: 'Sign in' } }, { status: 401 });

interface App {
  origin: string;
  store: AgentRuntimeStore;
  server: Server;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startApp(refuseCrossSite: boolean): Promise<App> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const route = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      // A run that is still waiting for its model when the forged cancel arrives.
      start: ({ runId }) =>
        runtime.startRun({
          runId,
          model: scriptedModel([{ text: 'x', firstTokenMs: 600_000 }]),
          messages: [{ role: 'user', content: 'Hi' }],
        }),
    }),
    basePath: '/api',
    authorize: signedIn,
    ...(refuseCrossSite ? { refuseCrossSite: true } : {}),
  });
  const listener = toNodeListener(route);
  const server = createServer((request, response) =>
    listener(request, response, () => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>app</title><p>app</p>');
    }),
  );
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, store, server };
}

let browser: Browser;
let attacker: Server;
let attackerPort: number;
/** The forged form's target, set per test before the attacker's page is opened. */
let target = '';
const apps: App[] = [];

beforeAll(async () => {
  attacker = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>another site</title><form id="f" method="POST" action="${target}"></form>` +
        '<script>document.getElementById("f").submit()</script>',
    );
  });
  attackerPort = await listen(attacker);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const server of [attacker, ...apps.map((app) => app.server)]) {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
});

/** Signs in on the app's page, starts a run there, then lets the other site forge a cancel. */
async function forgeCancel(refuseCrossSite: boolean) {
  const app = await startApp(refuseCrossSite);
  apps.push(app);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${app.origin}/`);
    const own = await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noDocumentCookie: exactly what the guides tell a reader to do
      document.cookie = 'session=dev';
      const started = await fetch('/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const { runId } = (await started.json()) as { runId: string };
      // The app's own pages read the run's history: a same-origin GET carries no Origin.
      const history = await fetch(`/api/runs/${runId}/operations`);
      return { start: started.status, runId, history: history.status };
    });
    expect(own).toMatchObject({ start: 201, history: 200 });
    target = `${app.origin}/api/runs/${own.runId}/cancel`;
    const navigation = page.goto(`http://localhost:${attackerPort}/`);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === target, { timeout: 60_000 }),
      navigation,
    ]);
    return { app, runId: own.runId, status: answer.status(), body: await answer.text() };
  } finally {
    await context.close();
  }
}

describe('a cross-site <form method=POST> against a cookie session (Chromium)', () => {
  it('without the guard, the browser sends the cookie and the forged cancel lands (the attack is real here)', async () => {
    const forged = await forgeCancel(false);
    expect(forged.status).toBe(202);
    await expect
      .poll(async () => (await forged.app.store.getRun(forged.runId)).status, {
        timeout: 30_000,
      })
      .toBe('cancelled');
  });

  it('with refuseCrossSite, the forged cancel is 403 cross_site and the run is untouched', async () => {
    const forged = await forgeCancel(true);
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body)).toMatchObject({ error: { code: 'cross_site' } });
    const run = await forged.app.store.getRun(forged.runId);
    expect(run.status).toBe('running');
    // Nothing was recorded for anyone to apply later.
    expect(await forged.app.store.controlRequests!.pending([forged.runId])).toEqual([]);
  });
});
