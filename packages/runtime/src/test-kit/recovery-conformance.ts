import type { AgentRun, DurableRunEvent, UIMessage } from '@runlight/protocol';
import { describe, expect, it, vi } from 'vitest';
import {
  type AgentRuntimeDriver,
  type AgentRuntimeStore,
  createAgentRuntime,
  createAgentRuntimeStore,
  createRunRecovery,
  type RecoveryOutcome,
  type ResolveRun,
} from '../index';
import {
  ABANDONED_TOOL_CALL_TEXT,
  INTERRUPTED_TOOL_CALL_TEXT,
} from '../runner/checkpoints/abandoned-message';
import { OwnedRun } from '../store/owned-run';
import { scriptedModel } from '../testing/index';
import { manualClock, modelRequest } from './kit-fixtures';

export interface RecoveryTarget {
  /** A driver over fresh, empty storage. */
  driver: AgentRuntimeDriver;
  close?: () => Promise<void>;
}

const DEAD_LEASE_MS = 1_000;
const messages = [{ role: 'user' as const, content: 'Finish the sentence.' }];

/**
 * A driver cut off from its storage at `freeze()`: every later call never answers, as for a
 * killed process — nothing it had not written yet is written.
 */
function freezable(driver: AgentRuntimeDriver) {
  let frozen = false;
  const never = new Promise<never>(() => {});
  const gate =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      frozen ? never : call(...args);
  const wrapped: AgentRuntimeDriver = {
    load: gate((runId) => driver.load(runId)),
    compareAndSet: gate((runId, expected, next, events, head) =>
      driver.compareAndSet(runId, expected, next, events, head),
    ),
    readEvents: gate((runId, after) => driver.readEvents(runId, after)),
    findExpiredRuns: gate((query) => driver.findExpiredRuns(query)),
  };
  return {
    driver: wrapped,
    freeze: () => {
      frozen = true;
    },
  };
}

/** A run whose owner died mid-answer: a model request in first output, half a sentence saved. */
async function crashedRun(store: AgentRuntimeStore, runId: string): Promise<AgentRun> {
  await store.createRun({ runId });
  const dead = new OwnedRun(
    store,
    await store.acquireRun(runId, { owner: 'worker-dead', leaseMs: DEAD_LEASE_MS }),
  );
  await dead.recordRunOperation(modelRequest(0));
  await dead.recordRunOperation(modelRequest(0, 'first-output'));
  const message: UIMessage = {
    id: `message-${runId}`,
    role: 'assistant',
    parts: [{ type: 'step-start' }, { type: 'text', text: 'Half of ', state: 'streaming' }],
  };
  return dead.saveAssistantCheckpoint(message);
}

const finishing: ResolveRun = () => ({
  model: scriptedModel([{ text: 'the sentence.' }]),
  messages,
});

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * The recovery loop on a real driver (memory, PGlite, a PostgreSQL server): recoverers racing
 * for the same expired runs, a poison run, an application that cannot continue a run.
 */
export function describeRunRecovery(name: string, makeTarget: () => Promise<RecoveryTarget>) {
  describe(`run recovery: ${name}`, () => {
    async function world() {
      const target = await makeTarget();
      const clock = manualClock();
      /** One store per process, as separate instances would have, over the same storage. */
      const storeOf = (driver: AgentRuntimeDriver = target.driver) =>
        createAgentRuntimeStore(driver, { now: clock.now });
      const recoverer = (owner: string, options: { driver?: AgentRuntimeDriver } = {}) => {
        const store = storeOf(options.driver);
        const logs: string[] = [];
        const runtime = createAgentRuntime({
          store,
          owner,
          leaseMs: DEAD_LEASE_MS,
          onLog: (entry) => logs.push(`${entry.level}: ${entry.message}`),
        });
        return { store, runtime, logs };
      };
      return { target, clock, store: storeOf(), storeOf, recoverer };
    }

    it('two recoverers racing for 50 expired runs recover each exactly once', async () => {
      const { target, clock, store, recoverer } = await world();
      try {
        const ids = Array.from({ length: 50 }, (_, index) => `race-${index}`);
        for (const id of ids) await crashedRun(store, id);
        clock.advance(DEAD_LEASE_MS);
        const [a, b] = [recoverer('recoverer-a'), recoverer('recoverer-b')];
        const recoveries = [a, b].map(({ store, runtime }) =>
          createRunRecovery({ store, runtime, resolveRun: finishing, batchSize: 50 }),
        );
        const outcomes: RecoveryOutcome[] = (
          await Promise.all(recoveries.map((recovery) => recovery.tick()))
        ).flat();

        const recovered = outcomes.filter((outcome) => outcome.result === 'recovered');
        expect(recovered.map((outcome) => outcome.runId).sort()).toEqual([...ids].sort());
        for (const outcome of outcomes.filter((outcome) => outcome.result !== 'recovered')) {
          expect(outcome).toMatchObject({ result: 'skipped' });
          expect(['lease-held', 'run-ended']).toContain(outcome.reason);
        }
        await vi.waitFor(
          async () => {
            for (const id of ids) expect((await store.getRun(id)).status).toBe('completed');
          },
          { timeout: 30_000, interval: 50 },
        );
        for (const id of ids) {
          const events = await store.readEvents(id);
          const acquisitions = events.filter(
            (event) => event.type === 'run-status' && event.change === 'acquired',
          );
          // The dead owner's, then exactly one recoverer's: nobody else ever wrote.
          expect(acquisitions.map((event) => (event as { owner: string }).owner)).toEqual([
            'worker-dead',
            expect.stringMatching(/^recoverer-[ab]$/),
          ]);
          const takeover = events.indexOf(acquisitions[1]!);
          const owners = new Set(events.slice(takeover).flatMap(ownerOf));
          expect(owners.size).toBe(1);
          expect(events[takeover + 1]).toMatchObject({
            type: 'run-operation',
            operation: { id: 'model-request:step-0', phase: 'failed' },
          });
          const snapshot = await store.getSnapshot(id);
          expect(textOf(snapshot.assistant?.message)).toBe('Half of the sentence.');
          expect(ownerOf(acquisitions[1]!)).toEqual([snapshot.run.owner]);
        }
      } finally {
        await target.close?.();
      }
    });

    it('ends a poison run ownership_lost once it was taken over more than maxAttempts times', async () => {
      const { target, clock, store, recoverer } = await world();
      try {
        await crashedRun(store, 'poison');
        const maxAttempts = 2;
        // Every recoverer that continues this run dies in its model request.
        const hanging: ResolveRun = () => ({
          model: scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]),
          messages,
        });
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          clock.advance(DEAD_LEASE_MS);
          const cut = freezable(target.driver);
          const doomed = recoverer(`recoverer-${attempt}`, { driver: cut.driver });
          const recovery = createRunRecovery({ ...doomed, resolveRun: hanging, maxAttempts });
          expect(await recovery.tick()).toEqual([
            { runId: 'poison', result: 'recovered', takeovers: attempt },
          ]);
          await vi.waitFor(async () =>
            expect((await store.getRun('poison')).lastOperation).toMatchObject({
              step: attempt,
              phase: 'started',
            }),
          );
          cut.freeze(); // the worker dies while it waits for the model
        }
        clock.advance(DEAD_LEASE_MS);
        const last = recoverer('recoverer-last');
        const resolveRun = vi.fn(finishing);
        const recovery = createRunRecovery({ ...last, resolveRun, maxAttempts });
        expect(await recovery.tick()).toEqual([
          { runId: 'poison', result: 'ended', reason: 'max-attempts', takeovers: 3 },
        ]);
        expect(resolveRun).not.toHaveBeenCalled();
        const run = await store.getRun('poison');
        expect(run).toMatchObject({
          status: 'failed',
          owner: 'recoverer-last',
          leaseExpiresAt: null,
          failure: { code: 'ownership_lost', operationId: expect.stringContaining('step-2') },
          lastOperation: { step: 2, phase: 'failed' },
        });
        expect(
          await store.findExpiredRuns({ now: new Date(Date.parse(clock.iso()) + 60_000) }),
        ).toEqual([]);
      } finally {
        await target.close?.();
      }
    });

    it('closes the tool calls a dead owner left unfinished: no tool working forever', async () => {
      const { target, clock, store, recoverer } = await world();
      try {
        await store.createRun({ runId: 'tools' });
        const dead = new OwnedRun(
          store,
          await store.acquireRun('tools', { owner: 'worker-dead', leaseMs: DEAD_LEASE_MS }),
        );
        await dead.recordRunOperation(modelRequest(0));
        await dead.recordRunOperation(modelRequest(0, 'first-output'));
        await dead.saveAssistantCheckpoint({
          id: 'message-tools',
          role: 'assistant',
          parts: [
            { type: 'step-start' },
            { type: 'text', text: 'Paying and looking up.', state: 'done' },
            { type: 'tool-pay', toolCallId: 'call-pay', state: 'input-streaming', input: {} },
            {
              type: 'tool-lookup',
              toolCallId: 'call-lookup',
              state: 'input-available',
              input: { q: 'x' },
            },
          ],
        } as UIMessage);
        clock.advance(DEAD_LEASE_MS);
        const { runtime } = recoverer('recoverer-a');
        const shown: (UIMessage | null)[] = [];
        const recovery = createRunRecovery({
          store,
          runtime,
          resolveRun: (_run, { message }) => {
            shown.push(message);
            return finishing(_run, { message, takeovers: 1 });
          },
        });
        const [outcome] = await recovery.tick();
        expect(outcome).toMatchObject({ result: 'recovered' });
        await vi.waitFor(async () => {
          expect((await store.getRun('tools')).status).toBe('completed');
        });
        const parts = (await store.getSnapshot('tools')).assistant?.message.parts ?? [];
        const tools = parts.filter((part) => part.type.startsWith('tool-'));
        expect(tools).toEqual([
          expect.objectContaining({
            type: 'tool-pay',
            state: 'output-error',
            errorText: ABANDONED_TOOL_CALL_TEXT,
          }),
          expect.objectContaining({
            type: 'tool-lookup',
            state: 'output-error',
            errorText: INTERRUPTED_TOOL_CALL_TEXT,
          }),
        ]);
        // The application continues what the page will show.
        expect(shown[0]?.parts.filter((part) => part.type.startsWith('tool-'))).toEqual(tools);
        expect(textOf((await store.getSnapshot('tools')).assistant?.message)).toBe(
          'Paying and looking up.the sentence.',
        );
      } finally {
        await target.close?.();
      }
    });

    it('finishes the pause of an owner that died after asking for an approval, before ending its request', async () => {
      const { target, clock, store, recoverer } = await world();
      try {
        await store.createRun({ runId: 'pausing' });
        const dead = new OwnedRun(
          store,
          await store.acquireRun('pausing', { owner: 'worker-dead', leaseMs: DEAD_LEASE_MS }),
        );
        await dead.recordRunOperation(modelRequest(0));
        await dead.recordRunOperation(modelRequest(0, 'first-output'));
        const approvalPart = {
          type: 'tool-pay',
          toolCallId: 'call-pay',
          state: 'approval-requested',
          input: { amount: 5 },
          approval: { id: 'approval-1' },
        };
        await dead.saveAssistantCheckpoint({
          id: 'message-pausing',
          role: 'assistant',
          parts: [{ type: 'step-start' }, approvalPart],
        } as UIMessage);
        clock.advance(DEAD_LEASE_MS);
        const { runtime } = recoverer('recoverer-a');
        const recovery = createRunRecovery({ store, runtime, resolveRun: finishing });
        expect(await recovery.tick()).toEqual([
          { runId: 'pausing', result: 'paused', takeovers: 1 },
        ]);
        const snapshot = await store.getSnapshot('pausing');
        // The card stays answerable; nobody holds the run; the request it never ended failed.
        expect(snapshot.assistant?.message.parts[1]).toEqual(approvalPart);
        expect(snapshot.run).toMatchObject({
          status: 'running',
          leaseExpiresAt: null,
          lastOperation: { id: 'model-request:step-0', phase: 'failed' },
        });
      } finally {
        await target.close?.();
      }
    });

    it('ends a run ownership_lost when resolveRun returns nothing, closing what the dead owner left open', async () => {
      const { target, clock, store, recoverer } = await world();
      try {
        await crashedRun(store, 'orphan');
        clock.advance(DEAD_LEASE_MS);
        const { runtime } = recoverer('recoverer-a');
        const recovery = createRunRecovery({ store, runtime, resolveRun: async () => null });
        expect(await recovery.tick()).toEqual([
          { runId: 'orphan', result: 'ended', reason: 'not-resolved', takeovers: 1 },
        ]);
        const snapshot = await store.getSnapshot('orphan');
        expect(snapshot.run).toMatchObject({
          status: 'failed',
          failure: { code: 'ownership_lost', operationId: 'model-request:step-0' },
          lastOperation: { id: 'model-request:step-0', phase: 'failed' },
        });
        expect(snapshot.assistant?.message.parts).toEqual([
          { type: 'step-start' },
          { type: 'text', text: 'Half of ', state: 'done' },
        ]);
        const events = await store.readEvents('orphan');
        expect(events.slice(-4).map((event) => [event.type, changeOf(event)])).toEqual([
          ['run-status', 'acquired'],
          ['run-operation', 'failed'],
          ['assistant-checkpoint', undefined],
          ['run-status', 'failed'],
        ]);
        expect(await recovery.tick()).toEqual([]);
      } finally {
        await target.close?.();
      }
    });
  });
}

function ownerOf(event: DurableRunEvent): (string | null)[] {
  return event.type === 'run-status' ? [event.owner] : [];
}

function changeOf(event: DurableRunEvent): string | undefined {
  if (event.type === 'run-status') return event.change;
  if (event.type === 'run-operation') return event.operation.phase;
  return undefined;
}
