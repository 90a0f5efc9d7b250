import { describe, expect, it } from 'vitest';
import { InvalidRunIdError } from '../../errors/invalid-run-id-error';
import { createAgentRuntimeStore } from '../agent-runtime-store';
import type { AgentRuntimeDriver } from '../driver/driver';
import { createMemoryDriver } from '../driver/memory-driver';

/** A driver that records whether it was ever called. */
function spyDriver() {
  const memory = createMemoryDriver();
  const calls: string[] = [];
  const driver: AgentRuntimeDriver = {
    load: (runId) => {
      calls.push('load');
      return memory.load(runId);
    },
    compareAndSet: (...args) => {
      calls.push('compareAndSet');
      return memory.compareAndSet(...args);
    },
    findExpiredRuns: (...args) => {
      calls.push('findExpiredRuns');
      return memory.findExpiredRuns(...args);
    },
    readEvents: (...args) => {
      calls.push('readEvents');
      return memory.readEvents(...args);
    },
  };
  return { driver, calls };
}

const guard = { owner: 'a', fencingToken: 1, expectedRevision: 1 };

describe('run ids at the store boundary', () => {
  it.each([
    ['a NUL character', 'run\u0000one'],
    ['a space', 'run one'],
    ['a slash', 'run/one'],
    ['the empty string', ''],
    ['201 characters', 'r'.repeat(201)],
  ])(
    'refuses %s with InvalidRunIdError before the driver sees it, in every method',
    async (_, runId) => {
      const { driver, calls } = spyDriver();
      const store = createAgentRuntimeStore(driver);
      const attempts: Promise<unknown>[] = [
        store.createRun({ runId }),
        store.acquireRun(runId, { owner: 'a', leaseMs: 1_000 }),
        store.recordRunOperation(runId, guard, {
          id: 'request:step-0',
          kind: 'model-request',
          phase: 'started',
          step: 0,
          startedAt: '2026-12-02T10:00:00.000Z',
        }),
        store.saveAssistantCheckpoint(runId, guard, { id: 'm', role: 'assistant', parts: [] }),
        store.commitTerminal(runId, guard, { status: 'completed' }),
        store.renewLease(runId, guard),
        store.getRun(runId),
        store.getSnapshot(runId),
        store.readEvents(runId),
      ];
      for (const attempt of attempts) {
        const error = await attempt.then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(InvalidRunIdError.isInstance(error)).toBe(true);
        expect((error as InvalidRunIdError).runId).toBe(runId.slice(0, 80));
      }
      expect(calls).toEqual([]);
    },
  );

  it('accepts every id the HTTP layer routes', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const run = await store.createRun({ runId: 'a:b.c~d_e-f' });
    expect(run.id).toBe('a:b.c~d_e-f');
  });
});
