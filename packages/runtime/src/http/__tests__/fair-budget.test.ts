import { describe, expect, it } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers } from '../create-run-handlers';
import { publishingDriver, ScriptedRun } from './http-test-kit';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A reader that reads every byte as soon as it arrives; `dropped` once its stream errored. */
function healthyReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const state = { bytes: 0, dropped: false, ended: false };
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.bytes += value.byteLength;
      }
      state.ended = true;
    } catch {
      state.dropped = true;
    }
  })();
  return state;
}

describe('fair slow-reader budgets (issue 22 item 7)', () => {
  it('never drops a reader that keeps up during large bursts while paused readers fill the budget', async () => {
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
    const run = await ScriptedRun.start({ store, hub }, 'run-1');
    const handlers = createRunHandlers({
      store,
      runtime: hub,
      authorize: 'public',
      maxBufferedBytes: 4 * MiB,
    });
    const open = () =>
      handlers.events(new Request('http://test/runs/run-1/events?after=2'), 'run-1');
    // Three readers that never read, three that read everything.
    const paused = await Promise.all([open(), open(), open()]);
    const healthy = (await Promise.all([open(), open(), open()])).map((response) =>
      healthyReader(response.body!),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(hub.listenerCount('run-1')).toBe(6);

    // 200 KiB per tick (ten 20 KiB deltas in one task), 40 ticks: 8 MiB for each reader.
    const delta = 'x'.repeat(20 * KiB);
    for (let tick = 0; tick < 40; tick++) {
      for (let i = 0; i < 10; i++) run.delta(delta);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The paused readers were dropped (together they held more than the budget) ...
    expect(hub.listenerCount('run-1')).toBe(3);
    // ... and none of the readers that kept up was.
    expect(healthy.map((reader) => reader.dropped)).toEqual([false, false, false]);
    expect(healthy.every((reader) => reader.bytes >= 40 * 200 * KiB)).toBe(true);
    expect(handlers.bufferedBytes()).toBeLessThanOrEqual(4 * MiB);
    for (const response of paused) await response.body!.cancel().catch(() => {});
  });
});
