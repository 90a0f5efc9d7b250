import { createRunlightClient } from '@runlight/client';
import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runQueryKey } from '../provider/run-query';
import { RunlightProvider } from '../provider/runlight-provider';
import { RunStatus } from '../status/run-status';
import { fakeRunServer } from './fake-run-server';
import { settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const startedSnapshot = () => snapshot(5, { lastOperation: modelRequestOperation('started') });

/** Reports which query client the app's own components below the provider see. */
function AppQueryClientProbe({ onClient }: { onClient: (client: QueryClient) => void }) {
  onClient(useQueryClient());
  return null;
}

describe('RunlightProvider inside an app with its own QueryClientProvider', () => {
  it('caches snapshots in the app’s query client and never shadows it', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: startedSnapshot() });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    const appQueryClient = new QueryClient();
    const seen: QueryClient[] = [];
    render(
      <QueryClientProvider client={appQueryClient}>
        <RunlightProvider client={client}>
          <RunStatus runId={RUN_ID} />
          <AppQueryClientProbe onClient={(queryClient) => seen.push(queryClient)} />
        </RunlightProvider>
      </QueryClientProvider>,
    );
    await settle();
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
    expect(appQueryClient.getQueryData(runQueryKey(RUN_ID))).toMatchObject({
      snapshot: { revision: 5 },
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((queryClient) => queryClient === appQueryClient)).toBe(true);
  });

  it('an explicit queryClient prop wins for Runlight and still leaves the app’s context alone', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: startedSnapshot() });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    const appQueryClient = new QueryClient();
    const runlightQueryClient = new QueryClient();
    const seen: QueryClient[] = [];
    render(
      <QueryClientProvider client={appQueryClient}>
        <RunlightProvider client={client} queryClient={runlightQueryClient}>
          <RunStatus runId={RUN_ID} />
          <AppQueryClientProbe onClient={(queryClient) => seen.push(queryClient)} />
        </RunlightProvider>
      </QueryClientProvider>,
    );
    await settle();
    expect(runlightQueryClient.getQueryData(runQueryKey(RUN_ID))).toBeDefined();
    expect(appQueryClient.getQueryData(runQueryKey(RUN_ID))).toBeUndefined();
    expect(seen.every((queryClient) => queryClient === appQueryClient)).toBe(true);
  });

  it('without an app query client it provides its own (nothing to shadow) to Runlight and below', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: startedSnapshot() });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    const seen: QueryClient[] = [];
    render(
      <RunlightProvider client={client}>
        <RunStatus runId={RUN_ID} />
        <AppQueryClientProbe onClient={(queryClient) => seen.push(queryClient)} />
      </RunlightProvider>,
    );
    await settle();
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
    expect(seen[0]?.getQueryData(runQueryKey(RUN_ID))).toMatchObject({ snapshot: { revision: 5 } });
  });
});

describe('RunlightProvider with only a baseUrl (plain props, e.g. from a server component)', () => {
  it('creates one client for its lifetime on the global fetch', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: startedSnapshot() });
    vi.stubGlobal('fetch', server.fetch);
    const view = render(
      <RunlightProvider baseUrl="http://runlight.test/api">
        <RunStatus runId={RUN_ID} />
      </RunlightProvider>,
    );
    await settle();
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
    view.rerender(
      <RunlightProvider baseUrl="http://runlight.test/api">
        <RunStatus runId={RUN_ID} />
      </RunlightProvider>,
    );
    await settle();
    // The same client, so the same store: no second snapshot load after a re-render.
    expect(server.requests.snapshot).toBe(1);
  });
});
