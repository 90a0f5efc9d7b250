import type { RunDeltaEvent, UIMessage } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { assembleMessage } from '../../assembly/assistant-assembler';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { wholeStoredEvent } from '../../store/log/packed-event';
import { scriptedModel } from '../../testing/scripted-model';
import { createAgentRuntime } from '../agent-runtime';
import { closeAbandonedParts } from '../checkpoints/abandoned-message';
import { user } from './harness';

/** A driver whose process dies after `appends` assistant appends: later writes never return. */
function dyingDriver(inner: AgentRuntimeDriver, appends: number): AgentRuntimeDriver {
  let seen = 0;
  return {
    load: (runId) => inner.load(runId),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (options) => inner.findExpiredRuns(options),
    async compareAndSet(runId, expected, next, events, head) {
      if (seen >= appends) return new Promise<boolean>(() => {});
      const written = await inner.compareAndSet(runId, expected, next, events, head);
      if (written && events.some((event) => wholeStoredEvent(event).type === 'assistant-append'))
        seen++;
      return written;
    },
  };
}

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('a crash between two appends', () => {
  it('loses at most the batch since the last one; the new owner continues exactly the durable prefix', async () => {
    const inner = createMemoryDriver();
    const cadence = 4;
    const store = createAgentRuntimeStore(dyingDriver(inner, 3));
    const dead = createAgentRuntime({
      store,
      owner: 'worker-dead',
      checkpointEveryEvents: cadence,
      leaseMs: 1_000,
      onLog: () => {},
    });
    const deltas: RunDeltaEvent[] = [];
    dead.subscribe('run-1', (event) => {
      if (event.type === 'run-delta') deltas.push(event);
    });
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
    void dead.startRun({
      runId: 'run-1',
      model: scriptedModel([{ tokenMs: 2, text: words }]),
      messages: user('Go'),
    });
    // Wait until the dead process is stuck on its fourth append.
    const stuck = async () => {
      for (let i = 0; i < 500 && deltas.filter((d) => d.seq === cadence).length < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await stuck();

    const later = createAgentRuntimeStore(inner, { now: () => new Date(Date.now() + 60_000) });
    const durable = (await later.getSnapshot('run-1')).assistant!;
    // Exactly the chunks before the last committed append, assembled by the SDK: a prefix.
    const committed = deltas.filter((d) => d.baseRevision < durable.revision).map((d) => d.chunk);
    const empty: UIMessage = { id: durable.message.id, role: 'assistant', parts: [] };
    expect(durable.message).toEqual(await assembleMessage(empty, committed));
    const published = textOf(
      await assembleMessage(
        empty,
        deltas.map((d) => d.chunk),
      ),
    );
    expect(published.startsWith(textOf(durable.message))).toBe(true);
    // What is lost is at most the batch in flight.
    expect(deltas.length - committed.length).toBeLessThanOrEqual(cadence);

    const next = createAgentRuntime({ store: later, owner: 'worker-b', onLog: () => {} });
    const run = await next.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Continued.' }]),
      messages: user('Go'),
    }).done;
    expect(run).toMatchObject({ status: 'completed', owner: 'worker-b' });
    const final = (await later.getSnapshot('run-1')).assistant!.message;
    const resumedFrom = closeAbandonedParts(durable.message);
    expect(final.id).toBe(durable.message.id);
    // The dead owner's text part is continued, not followed by a part of the new owner's.
    expect(final.parts.slice(0, -1)).toEqual(resumedFrom.parts.slice(0, -1));
    expect(final.parts).toHaveLength(resumedFrom.parts.length);
    expect(final.parts.at(-1)).toEqual({
      type: 'text',
      text: `${textOf(durable.message)}Continued.`,
      state: 'done',
    });
    expect(textOf(final)).toBe(`${textOf(durable.message)}Continued.`);
  });
});
