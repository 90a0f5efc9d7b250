import { createRunlightClient } from '@runlight/client';
import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSSRApp, h, onServerPrefetch } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { fakeRunServer, type SnapshotAnswer } from '../../../react/src/__tests__/fake-run-server';
import { settle, useFakeClock } from '../../../react/src/__tests__/harness';
import { createRunlight, type DehydratedRuns, RunStatus, useRunlight } from '../index';

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = '';
});

/** A page that prefetches its run on the server (`onServerPrefetch`) and shows its status. */
const Page = {
  setup() {
    const runlight = useRunlight();
    onServerPrefetch(() => runlight.prefetch(RUN_ID));
    return () => h(RunStatus, { runId: RUN_ID });
  },
};

function serve(answer: SnapshotAnswer) {
  const server = fakeRunServer(answer);
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch: server.fetch });
  return { server, client };
}

async function renderOnServer(answer: SnapshotAnswer) {
  const { server, client } = serve(answer);
  const runlight = createRunlight({ client });
  const html = await renderToString(createSSRApp(Page).use(runlight));
  // What travels to the browser is JSON (Nuxt's payload, a script tag).
  const snapshots = JSON.parse(JSON.stringify(runlight.dehydrate())) as DehydratedRuns;
  return { html, snapshots, requests: { ...server.requests } };
}

async function hydrate(html: string, snapshots: DehydratedRuns, answer: SnapshotAnswer) {
  const { server, client } = serve(answer);
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  createSSRApp(Page).use(createRunlight({ client, snapshots })).mount(container);
  const mismatches = [...warn.mock.calls, ...error.mock.calls].map((call) => String(call[0]));
  warn.mockRestore();
  error.mockRestore();
  return { server, container, mismatches };
}

const running = snapshot(5, { lastOperation: modelRequestOperation('started') });
const finished = snapshot(9, {
  status: 'completed',
  owner: null,
  lastOperation: modelRequestOperation('completed', { endedAt: at(7) }),
  updatedAt: at(8),
});

describe('server rendering (Nuxt, vue/server-renderer)', () => {
  it('the server loads the snapshot once and opens no stream; the browser hydrates it without loading it again, then streams', async () => {
    useFakeClock(at(4));
    const server = await renderOnServer({ json: running });
    expect(server.requests).toEqual({ snapshot: 1, events: 0 });
    expect(server.html).toContain('data-activity="waiting-for-model"');
    expect(server.html).toContain('Waiting for the model');
    // No running time on the server: its clock and the browser's would disagree.
    expect(server.html).not.toContain('data-runlight-part="elapsed"');

    const browser = await hydrate(server.html, server.snapshots, { json: running });
    expect(browser.mismatches).toEqual([]);
    await settle();
    expect(browser.server.requests).toEqual({ snapshot: 0, events: 1 });
    const status = browser.container.querySelector('[role="status"]');
    expect(status?.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe('3.0 s');
  });

  it('a finished run renders its whole time on the server and settles in the browser with no request at all', async () => {
    useFakeClock(at(60));
    const server = await renderOnServer({ json: finished });
    expect(server.requests).toEqual({ snapshot: 1, events: 0 });
    expect(server.html).toContain('Completed');
    expect(server.html).toContain('8.0 s');
    const browser = await hydrate(server.html, server.snapshots, { json: finished });
    expect(browser.mismatches).toEqual([]);
    await settle();
    expect(browser.server.requests).toEqual({ snapshot: 0, events: 0 });
    expect(browser.container.textContent).toContain('8.0 s');
  });

  it('a prefetch that fails renders the loading state and the browser loads the run itself', async () => {
    useFakeClock(at(4));
    const server = await renderOnServer({ status: 503 });
    expect(server.html).toContain('data-activity="loading"');
    expect(server.snapshots).toEqual({});
    const browser = await hydrate(server.html, server.snapshots, { json: running });
    expect(browser.mismatches).toEqual([]);
    await settle();
    expect(browser.server.requests.snapshot).toBe(1);
    expect(browser.container.textContent).toContain('Waiting for the model');
  });
});
