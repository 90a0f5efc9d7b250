import type { RunEvent } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { RuntimeClosedError } from '../../errors/runtime-closed-error';
import { createRunHandlers } from '../../http/create-run-handlers';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { wholeStoredEvent } from '../../store/log/packed-event';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, nextEvent, user } from './harness';

const LEASE_MS = 60_000;
const words = (n: number) => Array.from({ length: n }, (_, index) => `w${index} `);
const textOf = (parts: readonly { type: string; text?: string }[] | undefined) =>
  (parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
const isTextDelta = (event: RunEvent) =>
  event.type === 'run-delta' && event.chunk.type === 'text-delta';

/** Issue 21 item 8: a deploy stops a runner gracefully instead of crashing it. */
describe('runtime.close()', () => {
  it('stops a streaming run at a checkpoint and hands its lease off; the run stays running', async () => {
    const h = harness({ leaseMs: LEASE_MS, checkpointEveryEvents: 1_000 });
    const started = h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ tokenMs: 10, text: words(2_000) }]),
      messages: user('Go'),
    });
    await nextEvent(h.runtime, h.runId, isTextDelta);
    const streamed = () =>
      h.events
        .flatMap((event) =>
          event.type === 'run-delta' && event.chunk.type === 'text-delta'
            ? [event.chunk.delta]
            : [],
        )
        .join('');
    await h.runtime.close();
    const run = await started.done;

    expect(run).toMatchObject({ status: 'running', owner: 'worker-a', failure: null });
    expect(Date.parse(run.leaseExpiresAt ?? '')).toBeLessThanOrEqual(Date.now());
    const events = await h.store.readEvents(h.runId);
    expect(events.at(-1)).toMatchObject({ type: 'run-status', change: 'lease-handed-off' });
    // Every delta a watcher saw is checkpointed (none published after it), nothing more.
    const snapshot = await h.store.getSnapshot(h.runId);
    expect(textOf(snapshot.assistant?.message.parts)).toBe(streamed());
    expect(streamed().length).toBeGreaterThan(0);
    expect(snapshot.run.lastOperation).toMatchObject({ kind: 'model-request', phase: 'cancelled' });
    expect(await h.store.findExpiredRuns()).toEqual([
      { runId: h.runId, leaseExpiresAt: run.leaseExpiresAt },
    ]);
  });

  it('refuses startRun, resumeRun and recoverRun after close with RuntimeClosedError', async () => {
    const h = harness();
    await h.runtime.close();
    const start = h.runtime.startRun({
      runId: 'run-late',
      model: scriptedModel([{ text: 'Hi' }]),
      messages: user('Go'),
    });
    await expect(start.created).rejects.toSatisfy(RuntimeClosedError.isInstance);
    await expect(start.done).rejects.toSatisfy(RuntimeClosedError.isInstance);
    await expect(h.store.getRun('run-late')).rejects.toThrow();
    const resume = h.runtime.resumeRun({ runId: 'run-late', approvals: [] });
    await expect(resume.created).rejects.toSatisfy(RuntimeClosedError.isInstance);
    const recover = h.runtime.recoverRun({
      runId: 'run-late',
      maxAttempts: 3,
      resolveRun: () => null,
    });
    await expect(recover.outcome).rejects.toSatisfy(RuntimeClosedError.isInstance);
    // Idempotent.
    await h.runtime.close();
  });

  it('answers a start on a closed runtime 503 runtime_closed and creates nothing', async () => {
    const h = harness();
    const handlers = createRunHandlers({
      store: h.store,
      runtime: h.runtime,
      authorize: () => true,
      start: ({ runId }) =>
        h.runtime.startRun({ runId, model: scriptedModel([{ text: 'Hi' }]), messages: user('Go') }),
      onError: () => {},
    });
    await h.runtime.close();
    const response = await handlers.start(
      new Request('http://test/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    expect(response?.status).toBe(503);
    expect(await response?.json()).toMatchObject({ error: { code: 'runtime_closed' } });
  });

  it('after timeoutMs hands off the lease of an execution that cannot reach its checkpoint', async () => {
    const inner = createMemoryDriver();
    let stuck = false;
    // Once stuck, assistant writes never return: the execution cannot checkpoint.
    const driver: AgentRuntimeDriver = {
      ...inner,
      compareAndSet(runId, expected, next, events, ...rest) {
        if (
          stuck &&
          events.some((event) => wholeStoredEvent(event).type.startsWith('assistant-'))
        ) {
          return new Promise<boolean>(() => {});
        }
        return inner.compareAndSet(runId, expected, next, events, ...rest);
      },
    };
    const h = harness({
      store: createAgentRuntimeStore(driver),
      leaseMs: LEASE_MS,
      storeRetry: { budgetMs: 10 },
    });
    const started = h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ tokenMs: 10, text: words(2_000) }]),
      messages: user('Go'),
    });
    await nextEvent(h.runtime, h.runId, isTextDelta);
    stuck = true;
    await h.runtime.close({ timeoutMs: 50 });
    const run = await h.store.getRun(h.runId);
    expect(run).toMatchObject({ status: 'running', owner: 'worker-a' });
    expect(Date.parse(run.leaseExpiresAt ?? '')).toBeLessThanOrEqual(Date.now());
    expect(await h.store.findExpiredRuns()).toEqual([
      { runId: h.runId, leaseExpiresAt: run.leaseExpiresAt },
    ]);
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'close() timed out: the lease was handed off',
      }),
    );
    void started.done.catch(() => {});
  });
});
