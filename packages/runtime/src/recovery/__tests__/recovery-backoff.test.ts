import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunRecovery } from '../create-run-recovery';

/**
 * Runs whose takeover throws — here a record that no longer parses — must not hold the head of
 * the expired queue: the loop backs off from each one and fills its batch with the others.
 */
describe('recovery backs off from runs whose takeover throws', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-03T08:00:00.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('recovers the healthy run behind a full batch of broken ones, and retries those later, less often', async () => {
    const memory = createMemoryDriver();
    const broken = new Set(['broken-1', 'broken-2']);
    const loads: string[] = [];
    const driver: AgentRuntimeDriver = {
      ...memory,
      async load(runId) {
        loads.push(runId);
        return broken.has(runId) ? { run: { id: runId } } : memory.load(runId);
      },
    };
    const store = createAgentRuntimeStore(driver);
    // A dead worker leased every run; the broken ones expire first.
    for (const runId of ['broken-1', 'broken-2', 'healthy']) {
      await createAgentRuntimeStore(memory).createRun({ runId });
      await createAgentRuntimeStore(memory).acquireRun(runId, { owner: 'dead', leaseMs: 1_000 });
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(1_000);
    const logs: string[] = [];
    const runtime = createAgentRuntime({ store, owner: 'recoverer', onLog: () => {} });
    const recovery = createRunRecovery({
      store,
      runtime,
      batchSize: 2,
      intervalMs: 1_000,
      resolveRun: () => ({
        model: scriptedModel([{ text: 'done' }]),
        messages: [{ role: 'user', content: 'Go on' }],
      }),
      onLog: (entry) => logs.push(`${entry.runId}: ${entry.message}`),
    });

    const first = await recovery.tick();
    expect(first.map((outcome) => [outcome.runId, outcome.result])).toEqual([
      ['broken-1', 'skipped'],
      ['broken-2', 'skipped'],
    ]);
    expect(logs.filter((line) => line.includes('could not be taken over'))).toHaveLength(2);

    // The next poll skips the broken runs (backing off 2 s) and reaches the healthy one.
    const second = await recovery.tick();
    expect(second.map((outcome) => [outcome.runId, outcome.result])).toEqual([
      ['healthy', 'recovered'],
    ]);

    // Until their backoff ends, polls leave the broken runs alone.
    loads.length = 0;
    expect(await recovery.tick()).toEqual([]);
    expect(loads.filter((runId) => broken.has(runId))).toEqual([]);

    // Then each is tried once more, and the next wait doubles (4 s).
    vi.advanceTimersByTime(2_000);
    expect((await recovery.tick()).map((outcome) => outcome.runId)).toEqual([
      'broken-1',
      'broken-2',
    ]);
    expect(logs.at(-1)).toMatch(/2 in a row\); next try in 4000 ms/);
    vi.advanceTimersByTime(2_000);
    expect(await recovery.tick()).toEqual([]);

    // A run repaired meanwhile is taken over on its next try, and forgotten by the backoff.
    broken.delete('broken-1');
    vi.advanceTimersByTime(2_000);
    const repaired = await recovery.tick();
    expect(repaired.map((outcome) => [outcome.runId, outcome.result])).toEqual([
      ['broken-1', 'recovered'],
      ['broken-2', 'skipped'],
    ]);
    await recovery.stop();
  });
});
