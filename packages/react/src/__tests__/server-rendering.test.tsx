import { createRunlightClient } from '@runlight/client';
import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { dehydrate, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import { act, cleanup } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prefetchRun, runQueryKey } from '../provider/run-query';
import { RunlightProvider } from '../provider/runlight-provider';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { fakeRunServer } from './fake-run-server';
import { settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function Page() {
  return (
    <>
      <RunStatus runId={RUN_ID} />
      <OperationIndicator runId={RUN_ID} />
    </>
  );
}

describe('server rendering', () => {
  it('renders the prefetched status on the server and hydrates it without a mismatch or a second snapshot request', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({
      json: {
        ...snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(4) }) }),
        serverTime: at(12),
      },
    });
    const options = { baseUrl: 'http://runlight.test/api', fetch: server.fetch };

    // "Server": prefetch, render to a string, dehydrate.
    const serverQueryClient = new QueryClient();
    const serverClient = createRunlightClient(options);
    await prefetchRun(serverQueryClient, serverClient, RUN_ID);
    const html = renderToString(
      <RunlightProvider client={serverClient} queryClient={serverQueryClient}>
        <Page />
      </RunlightProvider>,
    );
    expect(html).toContain('Waiting for the model');
    expect(html).not.toContain('data-runlight-part="elapsed"'); // no clock on the server
    const dehydrated = JSON.parse(JSON.stringify(dehydrate(serverQueryClient)));

    // "Browser": a fresh client and query client hydrate the same markup.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const browserQueryClient = new QueryClient();
    await act(async () => {
      hydrateRoot(
        container,
        <RunlightProvider client={createRunlightClient(options)} queryClient={browserQueryClient}>
          <HydrationBoundary state={dehydrated}>
            <Page />
          </HydrationBoundary>
        </RunlightProvider>,
      );
    });
    await settle();
    expect(errors).not.toHaveBeenCalled();
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
    const status = container.querySelector('[role="status"]')!;
    expect(status.textContent).toContain('Waiting for the model');
    // After hydration the time runs, from startedAt on the clock offset the browser measured.
    expect(status.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe('8.0 s');
    container.remove();
  });

  it('prefetchRun on a server keeps no clock offset for the browser', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: { ...snapshot(5), serverTime: at(12) } });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    const queryClient = new QueryClient();
    vi.stubGlobal('document', undefined);
    await prefetchRun(queryClient, client, RUN_ID);
    vi.unstubAllGlobals();
    expect(queryClient.getQueryData(runQueryKey(RUN_ID))).toMatchObject({ clockOffsetMs: null });
    const inBrowser = new QueryClient();
    await prefetchRun(inBrowser, client, RUN_ID);
    expect(inBrowser.getQueryData(runQueryKey(RUN_ID))).toMatchObject({ clockOffsetMs: 2000 });
  });
});
