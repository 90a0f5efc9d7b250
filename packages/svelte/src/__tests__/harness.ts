import { createRunlightClient, type RunlightClient } from '@runlight/client';
import { flushSync } from 'svelte';
import { vi } from 'vitest';
import {
  type FakeRunServer,
  fakeRunServer,
  type SnapshotAnswer,
} from '../../../react/src/__tests__/fake-run-server.js';
import { createRunlightContext } from '../context/runlight-context.svelte.js';

export type { FakeRunServer, SnapshotAnswer };

/** Fake the clocks the code under test reads; microtasks and `setImmediate` stay real. */
export function useFakeClock(now: string): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  vi.setSystemTime(new Date(now));
}

/** Lets promises, stream reads, zero-delay timers and Svelte's effects run to rest. */
export async function settle(rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await vi.advanceTimersByTimeAsync(0);
    await new Promise((resolve) => setImmediate(resolve));
    flushSync();
  }
}

/** Moves the fake clock (timers fire on the way), then settles. */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  flushSync();
  await settle();
}

export interface Harness {
  server: FakeRunServer;
  client: RunlightClient;
  /** The Runlight context, for `render(Component, { props, context })`. */
  context: Map<symbol, unknown>;
}

/** A client on a fake transport (the one React's tests use) and its Svelte context. */
export function harness(answer: SnapshotAnswer, options: { recovers?: boolean } = {}): Harness {
  const server = fakeRunServer(answer);
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server.fetch,
    random: () => 0,
  });
  return { server, client, context: createRunlightContext(client, options) };
}
