import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import type { RunState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';
import { describeRunStatus } from '../status/describe-run-status';
import { selectRunStatus } from '../status/select-run-status';
import { defaultRunStatusLabels, describeActivity, statusText } from '../words/run-status-labels';

/**
 * Issue 45 item 6, end to end over loopback HTTP: worker A shuts down gracefully mid-answer
 * (`runtime.close()`, what a deploy's SIGTERM does) and worker B receives the run. A page must
 * read that as a planned hand-off — never "The worker stopped responding", however long the
 * hand-off takes — and the record says who handed over and to whom, on a page that watched and
 * on one that loaded afterwards. The answer continues in the same text part.
 */
const servers = loopbackServers();
afterEach(servers.closeAll);

const waitFor = <T>(check: () => T, timeout = 10_000) =>
  vi.waitFor(check, { timeout, interval: 5 });

const aWords = Array.from({ length: 400 }, (_, index) => `a${index} `);
const bWords = Array.from({ length: 12 }, (_, index) => `b${index} `);
const messages = [{ role: 'user' as const, content: 'Go' }];
const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
/** What `RunStatus` shows for a state, `recovers` on as in a deployment. */
const shown = (state: RunState) =>
  statusText(describeRunStatus(selectRunStatus(state), defaultRunStatusLabels, { recovers: true }));

describe.each([
  { form: 'public', exposeInternals: false },
  { form: 'with internals', exposeInternals: true },
])('a graceful hand-off seen over loopback HTTP ($form form)', ({ exposeInternals }) => {
  it('reads as a hand-off, names who handed over and to whom, and continues the same text part', async () => {
    const runId = 'run-hand-off';
    const driver = createMemoryDriver();
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(driver);
    const runtime = (owner: string) =>
      createAgentRuntime({ store, events: hub, owner, checkpointEveryEvents: 8, onLog: () => {} });
    const a = runtime('worker-a');
    const b = runtime('worker-b');
    const listener = toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime: hub, heartbeatMs: 200, exposeInternals }),
        basePath: '/api',
        authorize: 'public',
      }),
    );
    const { origin } = await servers.listen(listener);
    const client = () =>
      createRunlightClient({
        baseUrl: `${origin}/api`,
        reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      }).run(runId);

    const started = a.startRun({
      runId,
      model: scriptedModel([{ tokenMs: 2, text: aWords }]),
      messages,
    });
    await waitFor(() => store.getRun(runId));
    const page = client();
    const seen: RunState[] = [];
    const stop = page.subscribe(() => seen.push(page.getState()));
    await waitFor(() => expect(textOf(page.getState()).length).toBeGreaterThan(40));

    await a.close();
    expect(await started.done).toMatchObject({ status: 'running', owner: 'worker-a' });
    const handedOff = await store.getRun(runId);
    expect(handedOff.handOff).toEqual({ from: 'worker-a', at: handedOff.updatedAt });

    // The watching page and one loaded now: a hand-off, however long it waits — the expired
    // lease is no stall. (A minute later on the page's clock still reads the same.)
    const reloaded = client();
    const stopReloaded = reloaded.subscribe(() => {});
    for (const view of [page, reloaded]) {
      await waitFor(() => expect(view.getState().revision).toBe(handedOff.revision));
      const state = view.getState();
      expect(shown(state)).toBe('Handing over to another worker');
      const later = selectActivity(state, Date.now() + 60_000);
      expect(later).toMatchObject({ kind: 'handing-off', since: handedOff.updatedAt });
      expect(statusText(describeActivity(later, defaultRunStatusLabels, { recovers: true }))).toBe(
        'Handing over to another worker',
      );
    }
    const holderOfA = page.getState().run?.owner;
    expect(page.getState().run?.handOff).toEqual({ from: holderOfA, at: handedOff.updatedAt });

    const recovered = b.recoverRun({
      runId,
      maxAttempts: 3,
      resolveRun: () => ({ model: scriptedModel([{ tokenMs: 2, text: bWords }]), messages }),
    });
    expect(await recovered.outcome).toMatchObject({ result: 'recovered' });
    const run = await recovered.done;
    expect(run).toMatchObject({ status: 'completed', owner: 'worker-b' });
    expect(run.handOff).toEqual({ from: 'worker-a', at: handedOff.updatedAt, to: 'worker-b' });
    // The log rebuilds it: the acquisition that received the run says so.
    const acquired = (await store.readEvents(runId)).findLast(
      (event) => event.type === 'run-status' && event.change === 'acquired',
    );
    expect(acquired).toMatchObject({ handOff: { from: 'worker-a', to: 'worker-b' } });

    const final = await store.getSnapshot(runId);
    for (const view of [page, reloaded]) {
      await waitFor(() => expect(view.getState().revision).toBe(final.revision));
      const ownerOfB = view.getState().run?.owner;
      expect(view.getState().run?.handOff).toMatchObject({ to: ownerOfB });
      if (exposeInternals) expect(ownerOfB).toBe('worker-b');
    }
    stop();
    stopReloaded();

    // Not one state the page showed claimed a stall or a takeover.
    const words = new Set(seen.map(shown));
    expect(words).toContain('Handing over to another worker');
    for (const said of words) {
      expect(said).not.toMatch(/stopped responding|took over/);
    }
    // One answer, one text part: B's text continues A's, not a block of its own.
    const parts = final.assistant!.message.parts.filter((part) => part.type === 'text');
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ state: 'done' });
    const text = parts[0]!.type === 'text' ? parts[0]!.text : '';
    expect(text.startsWith('a0 a1 ')).toBe(true);
    expect(text.endsWith(bWords.join(''))).toBe(true);
    expect(selectMessage(page.getState())).toEqual(final.assistant!.message);
  });
});
