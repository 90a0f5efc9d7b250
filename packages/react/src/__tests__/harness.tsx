import { createRunlightClient, type RunlightClient } from '@runlight/client';
import { QueryClient } from '@tanstack/react-query';
import { act } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { RunlightProvider } from '../provider/runlight-provider';
import { type FakeRunServer, fakeRunServer, type SnapshotAnswer } from './fake-run-server';

/** Fake the clocks the code under test reads; microtasks and `setImmediate` stay real. */
export function useFakeClock(now: string): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  vi.setSystemTime(new Date(now));
}

/** Lets promises, stream reads, zero-delay timers and React work run to rest. */
export async function settle(rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => setImmediate(resolve));
    });
  }
}

/** Moves the fake clock (timers fire on the way), then settles. */
export async function advance(ms: number): Promise<void> {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await settle();
}

export interface Harness {
  server: FakeRunServer;
  client: RunlightClient;
  queryClient: QueryClient;
  wrapper: (props: { children?: ReactNode }) => ReactNode;
}

/** A client on a fake transport inside a provider with a fresh query client. */
export function harness(answer: SnapshotAnswer): Harness {
  const server = fakeRunServer(answer);
  // random 0: each reconnect waits exactly half its backoff step, so tests can time it.
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server.fetch,
    random: () => 0,
  });
  const queryClient = new QueryClient();
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={queryClient}>
      {children}
    </RunlightProvider>
  );
  return { server, client, queryClient, wrapper };
}
