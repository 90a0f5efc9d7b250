import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { type LoopbackServer, listenOnLoopback } from '@runlight/test-utils';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunState } from '../merge/run-state';
import { createMultiplexedRunlightClient } from '../multiplex/create-multiplexed-client';
import { selectMessage } from '../select/select-message';

const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
const answer = (index: number) =>
  Array.from({ length: 10 }, (_, word) => `r${index}w${word} `).join('');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: LoopbackServer;
let baseUrl: string;
let runtime: ReturnType<typeof createAgentRuntime>;
let store: ReturnType<typeof createAgentRuntimeStore>;

beforeAll(async () => {
  store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  runtime = createAgentRuntime({ store, events: hub, checkpointEveryEvents: 3 });
  server = await listenOnLoopback(
    toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime: hub }),
        multiplex: createMultiplexHandlers({ store, runtime: hub, heartbeatMs: 100 }),
        basePath: '/api',
        authorize: 'public',
      }),
    ),
  );
  baseUrl = `${server.origin}/api`;
});
afterAll(() => server.close());

let round = 0;

describe('RunMultiplexer under random joins and leaves (fast-check, loopback HTTP)', () => {
  it('whatever order stores join and leave the shared connection, each ends with its exact answer and never shows duplicated text', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
    console.log(`multiplexer property seed ${seed} (replay with FC_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 60 }),
        async (toggles, snapshotMs) => {
          try {
            await followRuns(toggles, snapshotMs);
          } catch (error) {
            // Printed at once: a CI timeout during shrinking would hide fast-check's report.
            console.log(
              `multiplexer property failed for toggles ${JSON.stringify(toggles)}, snapshotMs ${snapshotMs}`,
            );
            throw error;
          }
        },
      ),
      { numRuns: 8, seed },
    );
  }, 90_000);
});

/**
 * Toggles `[run index, then wait ms]`: a store joins or leaves; finally every run is watched.
 * Every snapshot answer is held `snapshotMs` after it was read, so stores leave and join while
 * their snapshot loads (and get one older than the run) at generated points, not at the
 * machine's speed.
 */
async function followRuns(toggles: [number, number][], snapshotMs: number): Promise<void> {
  round++;
  const ids = [0, 1, 2, 3].map((index) => `prop-${round}-${index}`);
  const handles = ids.map((runId, index) =>
    runtime.startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 10, tokenMs: 6, text: answer(index) }]),
      messages: [{ role: 'user', content: 'Go' }],
    }),
  );
  // Each run exists before a store asks for it (not polled: a loaded machine is slow).
  await Promise.all(handles.map((handle) => handle.created));
  const client = createMultiplexedRunlightClient({
    baseUrl,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).startsWith(`${baseUrl}/runs?ids=`)) await sleep(snapshotMs);
      return response;
    },
    reopenDelayMs: 2,
    reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
  });
  const seen = ids.map(() => [] as string[]);
  const subscriptions = new Map<number, () => void>();
  const toggle = (index: number) => {
    const off = subscriptions.get(index);
    if (off) {
      off();
      subscriptions.delete(index);
      return;
    }
    const runStore = client.run(ids[index]!);
    subscriptions.set(
      index,
      runStore.subscribe(() => seen[index]!.push(textOf(runStore.getState()))),
    );
  };
  for (const [index, delay] of toggles) {
    toggle(index);
    await sleep(delay);
  }
  // Finally every run is watched until it ends.
  for (const index of [0, 1, 2, 3]) if (!subscriptions.has(index)) toggle(index);
  await Promise.all(handles.map((handle) => handle.done));
  await vi.waitFor(
    () =>
      expect(ids.map((id) => client.run(id).getState().connection)).toEqual(
        ids.map(() => 'closed'),
      ),
    { timeout: 30_000, interval: 10 },
  );
  ids.forEach((id, index) => {
    expect(textOf(client.run(id).getState())).toBe(answer(index));
    for (const text of seen[index]!) expect(answer(index).startsWith(text)).toBe(true);
  });
  for (const off of subscriptions.values()) off();
  await vi.waitFor(() => expect(client.multiplexer.runIds()).toEqual([]));
}
