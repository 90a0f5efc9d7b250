import type { RunEvent } from '@runlight/protocol';
import {
  type AgentRuntimeDriver,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { wholeStoredEvent } from '@runlight/runtime/driver';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import type { RunState } from '../merge/run-state';
import { selectMessage } from '../select/select-message';

/**
 * Issue 21 item 7, end to end over loopback HTTP: worker A streams past its last checkpoint
 * and dies (its writes never return; its lease runs out); worker B takes the run over. Every
 * page must then show the checkpointed text followed by B's text — never A's lost deltas glued
 * to B's, never one of B's chunks missing.
 */
const servers = loopbackServers();
afterEach(servers.closeAll);

const waitFor = <T>(check: () => T, timeout = 10_000) =>
  vi.waitFor(check, { timeout, interval: 5 });

/** A driver whose process dies after `appends` assistant appends: later writes never return. */
function dyingDriver(inner: AgentRuntimeDriver, appends: number): AgentRuntimeDriver {
  let seen = 0;
  return {
    load: (runId) => inner.load(runId),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (options) => inner.findExpiredRuns(options),
    async compareAndSet(runId, expected, next, events) {
      if (seen >= appends) return new Promise<boolean>(() => {});
      const written = await inner.compareAndSet(runId, expected, next, events);
      if (written && events.some((event) => wholeStoredEvent(event).type === 'assistant-append'))
        seen++;
      return written;
    },
  };
}

const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');

const CADENCE = 4;
const aWords = Array.from({ length: 40 }, (_, index) => `a${index} `);
const bWords = Array.from({ length: 24 }, (_, index) => `b${index} `);
const messages = [{ role: 'user' as const, content: 'Go' }];

// Issue 22 item 10: by default the server sends no owner names and no fencing tokens (it drops
// the previous owner's late deltas itself); the playground's `exposeInternals` sends both.
describe.each([
  { form: 'public', exposeInternals: false },
  { form: 'with internals', exposeInternals: true },
])('a takeover seen over loopback HTTP ($form form)', ({ exposeInternals }) => {
  it('watchers show the checkpointed text then the new owner’s, never the dead owner’s lost deltas', async () => {
    const runId = 'run-takeover';
    const inner = createMemoryDriver();
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(inner);
    const a = createAgentRuntime({
      store: createAgentRuntimeStore(dyingDriver(inner, 3)),
      events: hub,
      owner: 'worker-a',
      checkpointEveryEvents: CADENCE,
      leaseMs: 1_000,
      onLog: () => {},
    });
    // B's clock is a minute ahead: A's lease has run out for it.
    const later = createAgentRuntimeStore(inner, { now: () => new Date(Date.now() + 60_000) });
    const b = createAgentRuntime({
      store: later,
      events: hub,
      owner: 'worker-b',
      checkpointEveryEvents: CADENCE,
      onLog: () => {},
    });
    const listener = toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime: hub, heartbeatMs: 200, exposeInternals }),
        basePath: '/api',
        authorize: 'public',
      }),
    );
    const { origin } = await servers.listen(listener);
    const published: RunEvent[] = [];
    hub.subscribe(runId, (event) => published.push(event));

    void a.startRun({
      runId,
      model: scriptedModel([{ tokenMs: 2, text: aWords }]),
      messages,
    });
    await waitFor(() => store.getRun(runId));
    const client = createRunlightClient({
      baseUrl: `${origin}/api`,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const throughout = client.run(runId);
    const seenThroughout: RunState[] = [];
    const stopThroughout = throughout.subscribe(() => seenThroughout.push(throughout.getState()));
    const reconnecting = createRunlightClient({
      baseUrl: `${origin}/api`,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    }).run(runId);
    const seenReconnecting: RunState[] = [];
    let stopReconnecting = reconnecting.subscribe(() => {});

    // A is stuck on its fourth append: both pages show the batch it will never write.
    for (const page of [throughout, reconnecting]) {
      await waitFor(() => expect(page.getState().live?.seq).toBe(CADENCE));
    }
    // What the pages call A: its worker id, or (public form) an opaque holder tag.
    const ownerOfA = throughout.getState().run?.owner ?? null;
    expect(ownerOfA).not.toBeNull();
    if (exposeInternals) expect(ownerOfA).toBe('worker-a');
    else expect(ownerOfA).toMatch(/^holder-[0-9a-f-]{36}$/);
    expect(throughout.getState().run?.fencingToken).toBe(exposeInternals ? 1 : undefined);
    const durable = (await store.getSnapshot(runId)).assistant!;
    const lost = textOf(throughout.getState());
    const durableText = durable.message.parts
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('');
    expect(lost.length).toBeGreaterThan(durableText.length);
    stopReconnecting();
    await waitFor(() => expect(reconnecting.getState().connection).toBe('idle'));

    const recovered = b.recoverRun({
      runId,
      maxAttempts: 3,
      // B waits for its model a little and streams slower than a page renders: every state
      // of the takeover is seen.
      resolveRun: () => ({
        model: scriptedModel([{ firstTokenMs: 60, tokenMs: 8, text: bWords }]),
        messages,
      }),
    });
    expect(await recovered.outcome).toMatchObject({ result: 'recovered' });
    // Had A only been paused, it would publish on after the takeover: on its old base, under
    // its old fencing token. No page may show it.
    const lastOfA = published.findLast((event) => event.type === 'run-delta');
    if (lastOfA?.type !== 'run-delta') throw new Error('A published no delta');
    expect(lastOfA.fencingToken).toBe(1);
    for (const seq of [lastOfA.seq + 1, 1]) {
      hub.publish({
        ...lastOfA,
        seq,
        chunk: { type: 'text-delta', id: 'text-0', delta: 'ZOMBIE ' },
      });
    }
    // The second page comes back once B streams.
    await waitFor(() =>
      expect(
        published.some(
          (event) =>
            event.type === 'run-delta' &&
            event.fencingToken === 2 &&
            event.chunk.type === 'text-delta',
        ),
      ).toBe(true),
    );
    stopReconnecting = reconnecting.subscribe(() => seenReconnecting.push(reconnecting.getState()));

    const run = await recovered.done;
    expect(run).toMatchObject({ status: 'completed', owner: 'worker-b' });
    const final = await store.getSnapshot(runId);
    const finalMessage = final.assistant!.message;
    const finalText = finalMessage.parts
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('');
    expect(finalText).toBe(`${durableText}${bWords.join('')}`);
    for (const page of [throughout, reconnecting]) {
      await waitFor(() => expect(page.getState().revision).toBe(final.revision));
      expect(selectMessage(page.getState())).toEqual(finalMessage);
      expect(page.getState().run?.fencingToken).toBe(exposeInternals ? 2 : undefined);
    }
    stopThroughout();
    stopReconnecting();

    // Once a page knows of the takeover, every state it shows is a prefix of the answer: the
    // checkpointed text, then B's, nothing of A's lost batch and no chunk of B's missing.
    const takenOver = (state: RunState) =>
      state.run !== null && state.run.owner !== null && state.run.owner !== ownerOfA;
    const afterTakeover = [...seenThroughout, ...seenReconnecting].filter(takenOver);
    expect(seenReconnecting.filter(takenOver).length).toBeGreaterThan(0);
    for (const state of afterTakeover) {
      const text = textOf(state);
      expect(finalText.startsWith(text), `shown: ${JSON.stringify(text)}`).toBe(true);
    }
    // The page that watched throughout showed B's text live, not only at the end.
    expect(
      seenThroughout.some(
        (state) => takenOver(state) && state.live !== null && textOf(state).includes('b1 '),
      ),
    ).toBe(true);
  });
});
