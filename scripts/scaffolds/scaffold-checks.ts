/**
 * The getting-started guides' apps, built for production and driven in Chromium: a run started
 * the guide's way (Next.js: the start route and the server action; Vite: the start route) shows
 * its status until "Completed"; reloaded mid-run it shows the same run (its id in the URL) with
 * its time going on, Stop cancels one, a finished run reloads without an event stream, and
 * (Next.js) an anonymous server action's refusal is shown in words; with no credentials every route the app serves answers 401
 * — also when a server action is the first thing to load `lib/runlight.ts` in a fresh
 * `next start` (route handlers and server actions are bundled apart in Next.js: a module both
 * import is evaluated twice).
 */
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { sh, step } from '../steps';
import {
  chatLeaks,
  freePort,
  type Started,
  startProcess,
  unauthenticatedLeaks,
  waitForAnswer,
} from './scaffold-server';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The session the guides' stand-in policy lets in (`RUNLIGHT_SESSION`). */
const SESSION = 'scaffold-check-session';

/** A page signed in with the stand-in's cookie; page errors fail the check. */
async function signedInPage(
  browser: Browser,
  origin: string,
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'session', value: SESSION, url: origin }]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(origin);
  return { page, errors };
}

/**
 * Clicks `button` and waits for the run it starts to show "Completed"; returns the run id the
 * page loaded (its first snapshot request for a run not in `seen`, to which it is added).
 */
async function startAndFollow(
  page: Page,
  button: string,
  errors: string[],
  seen: Set<string>,
): Promise<string> {
  const idOf = (url: string) => /\/api\/runs\/([^/?]+)$/.exec(new URL(url).pathname)?.[1];
  const snapshot = page.waitForRequest(
    (request) => {
      const id = idOf(request.url());
      return id !== undefined && !seen.has(id);
    },
    { timeout: 30_000 },
  );
  await page.getByRole('button', { name: button, exact: true }).click();
  const runId = idOf((await snapshot).url())!;
  seen.add(runId);
  // The page renders the new run from here on: an earlier run's "Completed" is gone.
  await page
    .locator('[data-runlight="status"]', { hasText: 'Completed' })
    .waitFor({ timeout: 30_000 })
    .catch(async (error) => {
      const shown = await page.locator('body').textContent();
      throw new Error(`"${button}": the run never showed Completed; the page shows:\n${shown}`, {
        cause: error,
      });
    });
  if (errors.length > 0) throw new Error(`page errors: ${errors.join('\n')}`);
  return runId;
}

/** The seconds a status shows beside its label (`2.4 s`, `1 min 3 s`); NaN when none. */
async function shownSeconds(page: Page): Promise<number> {
  const text = await page
    .locator('[data-runlight="status"] [data-runlight-part="elapsed"]')
    .first()
    .textContent();
  const found = /(?:(\d+) min )?(\d+(?:\.\d+)?) s/.exec(text ?? '');
  return found ? Number(found[1] ?? 0) * 60 + Number(found[2]) : Number.NaN;
}

/**
 * Issue 45 item 1, the page a guide builds: the run's id lives in the URL, so a reload mid-run
 * shows the same run with its time going on (never "Start a run" again, never a fresh clock);
 * Stop follows the controls' state and cancels a run; a finished run reloads from its snapshot
 * without opening an event stream.
 */
async function reloadStopAndReloadFinished(
  page: Page,
  button: string,
  errors: string[],
): Promise<void> {
  const status = page.locator('[data-runlight="status"]');
  await page.getByRole('button', { name: button, exact: true }).click();
  await status.and(page.locator('[data-activity="streaming"]')).waitFor({ timeout: 30_000 });
  const runUrl = page.url();
  if (!/[?&]run=/.test(runUrl)) throw new Error(`the run is not in the URL: ${runUrl}`);
  const before = await shownSeconds(page);
  await page.reload();
  await status.waitFor({ timeout: 30_000 });
  if (page.url() !== runUrl) throw new Error(`the reload left the run: ${page.url()}`);
  // Streaming since its first output still, or finished meanwhile (then counted from its
  // start): either way never less time than before the reload.
  await status
    .and(page.locator('[data-activity="streaming"], [data-activity="completed"]'))
    .waitFor({ timeout: 30_000 });
  const after = await shownSeconds(page);
  if (!(after >= before)) {
    throw new Error(`after the reload the status shows ${after} s, before it ${before} s`);
  }
  await status.and(page.locator('[data-activity="completed"]')).waitFor({ timeout: 30_000 });
  const stop = page.getByRole('button', { name: 'Stop', exact: true });
  if (await stop.isEnabled()) throw new Error('Stop is enabled on a completed run');

  // A new run, stopped while it runs.
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForURL((url) => url.href !== runUrl, { timeout: 30_000 });
  await status
    .and(page.locator('[data-activity="waiting-for-model"], [data-activity="streaming"]'))
    .waitFor({ timeout: 30_000 });
  await stop.click({ timeout: 10_000 });
  await status.and(page.locator('[data-activity="cancelled"]')).waitFor({ timeout: 30_000 });
  if (await stop.isEnabled()) throw new Error('Stop is enabled on a cancelled run');

  // The finished run, reloaded: its snapshot, and no event stream.
  const streams: string[] = [];
  page.on('request', (request) => {
    if (/\/(events|run-events)$/.test(new URL(request.url()).pathname)) {
      streams.push(request.url());
    }
  });
  await page.reload();
  await status.and(page.locator('[data-activity="cancelled"]')).waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  if (streams.length > 0) throw new Error(`a finished run opened streams: ${streams.join(', ')}`);
  if (errors.length > 0) throw new Error(`page errors: ${errors.join('\n')}`);
}

async function expectNoLeaks(
  origin: string,
  runId: string,
  when: string,
  chat?: string,
): Promise<void> {
  const leaks = await unauthenticatedLeaks(`${origin}/api`, runId);
  if (chat !== undefined) leaks.push(...(await chatLeaks(origin, chat, `session=${SESSION}`)));
  if (leaks.length > 0) {
    throw new Error(`${when}, with no credentials these did not answer 401:\n${leaks.join('\n')}`);
  }
}

async function withServers<T>(servers: Started[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    for (const server of servers) process.stderr.write(server.output());
    throw error;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function startNext(app: string): Promise<{ server: Started; origin: string }> {
  const port = await freePort();
  const next = join(app, 'node_modules', 'next', 'dist', 'bin', 'next');
  const server = startProcess(process.execPath, [next, 'start', '-p', String(port)], app, {
    RUNLIGHT_SESSION: SESSION,
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(origin, 60_000);
  } catch (error) {
    process.stderr.write(server.output());
    await server.stop();
    throw error;
  }
  return { server, origin };
}

/** `next build`, then two fresh `next start`s: the route first, the server action first. */
export async function checkNextScaffold(app: string, browser: Browser): Promise<void> {
  await step('scaffold Next.js: next build', () =>
    sh(process.execPath, [join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], app),
  );
  await step(
    'scaffold Next.js: next start → a run through the route, one through the action, 401s',
    async () => {
      const { server, origin } = await startNext(app);
      await withServers([server], async () => {
        const { page, errors } = await signedInPage(browser, origin);
        const seen = new Set<string>();
        const runId = await startAndFollow(page, 'Start a run (route)', errors, seen);
        // A second run in the same process: each run needs its own model (a script plays once).
        await startAndFollow(page, 'Start a run (server action)', errors, seen);
        await expectNoLeaks(origin, runId, 'after the route ran first', '/api/chat');
        await reloadStopAndReloadFinished(page, 'Start a run (route)', errors);
        await page.context().close();
        // Nobody signed in: the server action's refusal is shown, in words.
        const anonymous = await (await browser.newContext()).newPage();
        await anonymous.goto(origin);
        await anonymous
          .getByRole('button', { name: 'Start a run (server action)', exact: true })
          .click();
        await anonymous
          .getByRole('alert')
          .filter({ hasText: 'Sign in first.' })
          .waitFor({ timeout: 30_000 });
        await anonymous.context().close();
      });
    },
  );
  await step(
    'scaffold Next.js: fresh next start → the server action first, then 401s',
    async () => {
      const { server, origin } = await startNext(app);
      await withServers([server], async () => {
        const { page, errors } = await signedInPage(browser, origin);
        const runId = await startAndFollow(page, 'Start a run (server action)', errors, new Set());
        await expectNoLeaks(origin, runId, 'after a server action loaded the runtime', '/api/chat');
        await page.context().close();
      });
    },
  );
}

/** `npm run build` (tsc -b + vite build), then `npx tsx server.ts` and `vite preview`. */
export async function checkViteScaffold(app: string, browser: Browser): Promise<void> {
  await step('scaffold Vite: npm run build (tsc -b && vite build)', () =>
    sh('npm', ['run', 'build', '--silent'], app),
  );
  await step('scaffold Vite: npx tsx server.ts + vite preview → two runs, then 401s', async () => {
    const [apiPort, port] = [await freePort(), await freePort()];
    const env = { API_PORT: String(apiPort), RUNLIGHT_SESSION: SESSION };
    const api = startProcess('npx', ['tsx', 'server.ts'], app, env);
    const preview = startProcess(
      join(app, 'node_modules', '.bin', 'vite'),
      ['preview', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
      app,
      env,
    );
    const origin = `http://127.0.0.1:${port}`;
    await withServers([api, preview], async () => {
      await waitForAnswer(`http://127.0.0.1:${apiPort}/api/runs/none`, 60_000);
      await waitForAnswer(origin, 60_000);
      const { page, errors } = await signedInPage(browser, origin);
      const seen = new Set<string>();
      const runId = await startAndFollow(page, 'Start a run', errors, seen);
      // A second run in the same process: each run needs its own model (a script plays once).
      await startAndFollow(page, 'Start a run', errors, seen);
      await expectNoLeaks(origin, runId, 'through vite preview');
      await reloadStopAndReloadFinished(page, 'Start a run', errors);
      await page.context().close();
    });
  });
}

/** Chromium for the scaffold checks. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
