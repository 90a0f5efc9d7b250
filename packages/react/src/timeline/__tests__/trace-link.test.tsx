import { createRunlightClient } from '@runlight/client';
import type { RunTrace } from '@runlight/protocol';
import { at, RUN_ID, snapshot, statusEvent } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServerWithHistory } from '../../__tests__/fake-run-server';
import { settle, useFakeClock } from '../../__tests__/harness';
import { RunlightProvider } from '../../provider/runlight-provider';
import { RunTimeline } from '../run-timeline';
import { traceUrl } from '../trace-link';

beforeEach(() => useFakeClock(at(5)));
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const TRACE: RunTrace = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: 1,
};
const TEMPLATE = 'https://jaeger.example.com/trace/{traceId}?uiFind={spanId}&run={runId}';

function setup(trace: RunTrace | undefined) {
  const server = fakeRunServerWithHistory({
    runId: RUN_ID,
    events: [],
    snapshot: snapshot(2, trace ? { status: 'running', trace } : { status: 'running' }),
  });
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server.fetch,
    random: () => 0,
  });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {children}
    </RunlightProvider>
  );
  return { server, wrapper };
}

describe('RunTimeline traceUrl', () => {
  it('links to the run’s trace from the snapshot, and keeps it after later status events', async () => {
    const { server, wrapper } = setup(TRACE);
    render(<RunTimeline runId={RUN_ID} traceUrl={TEMPLATE} />, { wrapper });
    await settle();
    const link = screen.getByRole('link', { name: 'View trace' });
    const expected = `https://jaeger.example.com/trace/${TRACE.traceId}?uiFind=${TRACE.spanId}&run=${RUN_ID}`;
    expect(link.getAttribute('href')).toBe(expected);

    await act(async () => server.send(statusEvent(3, 'completed')));
    await settle();
    expect(screen.getByRole('link', { name: 'View trace' }).getAttribute('href')).toBe(expected);
  });

  it('shows no link for a run without a trace, or without a template', async () => {
    const untraced = setup(undefined);
    const { unmount } = render(<RunTimeline runId={RUN_ID} traceUrl={TEMPLATE} />, {
      wrapper: untraced.wrapper,
    });
    await settle();
    expect(screen.getByRole('table')).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull();
    unmount();

    const traced = setup(TRACE);
    render(<RunTimeline runId={RUN_ID} />, { wrapper: traced.wrapper });
    await settle();
    expect(screen.getByRole('table')).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('encodes each placeholder where it is put', () => {
    expect(traceUrl('/t/{runId}/{traceId}', 'run a/b', TRACE)).toBe(
      `/t/run%20a%2Fb/${TRACE.traceId}`,
    );
  });
});
