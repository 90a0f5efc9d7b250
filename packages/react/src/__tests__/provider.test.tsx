import { createRunlightClient } from '@runlight/client';
import { at, modelRequestOperation, operationEvent, RUN_ID, snapshot } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { cleanup, render, renderHook, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useElapsed } from '../elapsed/use-elapsed';
import { RunlightProviderMissingError } from '../errors/runlight-provider-missing-error';
import { useRun } from '../hooks/use-run';
import { useRunActivity } from '../hooks/use-run-activity';
import { useRunConnection } from '../hooks/use-run-connection';
import { useRunOperation } from '../hooks/use-run-operation';
import { useSuspenseRun } from '../hooks/use-suspense-run';
import { prefetchRun, runQueryKey } from '../provider/run-query';
import { RunlightProvider } from '../provider/runlight-provider';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { fakeRunServer } from './fake-run-server';
import { advance, harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function Reader() {
  const { activity } = useSuspenseRun(RUN_ID);
  return <p data-testid="reader">{activity.kind}</p>;
}

describe('outside the provider', () => {
  it.each<[string, () => unknown]>([
    ['useRun', () => useRun(RUN_ID)],
    ['useRunActivity', () => useRunActivity(RUN_ID)],
    ['useRunOperation', () => useRunOperation(RUN_ID)],
    ['useRunConnection', () => useRunConnection(RUN_ID)],
    ['useSuspenseRun', () => useSuspenseRun(RUN_ID)],
    ['useElapsed', () => useElapsed(at(1), { runId: RUN_ID })],
  ])('%s throws a message naming the hook and the provider', (hook, use) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let thrown: unknown;
    try {
      renderHook(use);
    } catch (error) {
      thrown = error;
    }
    expect(RunlightProviderMissingError.isInstance(thrown)).toBe(true);
    expect((thrown as RunlightProviderMissingError).hook).toBe(hook);
    expect((thrown as Error).message).toContain(`${hook} must be used inside <RunlightProvider`);
  });

  it('RunStatus and OperationIndicator say which provider is missing', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<RunStatus runId={RUN_ID} />)).toThrow(/RunlightProvider/);
    expect(() => render(<OperationIndicator runId={RUN_ID} />)).toThrow(/RunlightProvider/);
  });
});

describe('snapshots through TanStack Query', () => {
  it('the store loads its snapshot into the query cache under one key per run', async () => {
    useFakeClock(at(10));
    const { wrapper, server, queryClient } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(queryClient.getQueryData(runQueryKey(RUN_ID))).toMatchObject({
      snapshot: { revision: 5 },
    });
    expect(server.requests.snapshot).toBe(1);
  });

  it('a Suspense reader and a store subscriber share one snapshot request', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(
      <>
        <RunStatus runId={RUN_ID} />
        <Suspense fallback={<p data-testid="reader">suspended</p>}>
          <Reader />
        </Suspense>
      </>,
      { wrapper },
    );
    expect(screen.getByTestId('reader').textContent).toBe('suspended');
    await settle();
    // Never 'loading': the store was seeded from the cache before the first read.
    expect(screen.getByTestId('reader').textContent).toBe('waiting-for-model');
    expect(server.requests.snapshot).toBe(1);
  });

  it('prefetchRun fills the cache before rendering; the store starts from it without a request', async () => {
    useFakeClock(at(10));
    const { wrapper, server, queryClient, client } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    await prefetchRun(queryClient, client, RUN_ID);
    expect(server.requests.snapshot).toBe(1);
    render(<Reader />, { wrapper });
    expect(screen.getByTestId('reader').textContent).toBe('waiting-for-model');
    await settle();
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
  });

  it('retries a failed snapshot load (503) and then shows the run', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({ status: 503 });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(server.requests.snapshot).toBe(1);
    server.setSnapshot({ json: snapshot(5, { lastOperation: modelRequestOperation('started') }) });
    await advance(1000); // TanStack Query's first retry delay
    expect(server.requests.snapshot).toBe(2);
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
  });

  it.each([
    [404, 1],
    [422, 1],
    [503, 4],
  ])(
    'the snapshot query answered %i is requested %i time(s): only failures a retry can fix are retried',
    async (status, requests) => {
      useFakeClock(at(10));
      const { server, queryClient, client } = harness({ status });
      const prefetch = prefetchRun(queryClient, client, RUN_ID);
      await advance(60_000);
      await prefetch;
      expect(server.requests.snapshot).toBe(requests);
    },
  );

  it('a gap reloads the snapshot through the cache, which then holds the newer revision', async () => {
    useFakeClock(at(10));
    const { wrapper, server, queryClient } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    server.setSnapshot({
      json: snapshot(7, { lastOperation: modelRequestOperation('completed') }),
    });
    server.send(operationEvent(7, modelRequestOperation('completed'))); // revision 6 never arrived
    await settle();
    expect(server.requests.snapshot).toBe(2);
    expect(queryClient.getQueryData(runQueryKey(RUN_ID))).toMatchObject({
      snapshot: { revision: 7 },
    });
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('working');
  });

  it('creates its own QueryClient when none is given', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    render(
      <RunlightProvider client={client}>
        <RunStatus runId={RUN_ID} />
      </RunlightProvider>,
    );
    await settle();
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
  });

  it('restores the client’s own loader when the provider unmounts', async () => {
    useFakeClock(at(10));
    const server = fakeRunServer({ json: snapshot(5) });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    const queryClient = new QueryClient();
    const view = render(<RunlightProvider client={client} queryClient={queryClient} />);
    view.unmount();
    await client.run(RUN_ID).reload();
    expect(queryClient.getQueryData(runQueryKey(RUN_ID))).toBeUndefined();
    expect(client.run(RUN_ID).getState().revision).toBe(5);
  });
});
