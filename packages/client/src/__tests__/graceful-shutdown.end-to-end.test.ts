import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRecovery,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import type { RunState } from '../merge/run-state';
import { selectMessage } from '../select/select-message';

/**
 * Issue 21 item 8, end to end over loopback HTTP: a deploy closes runner A gracefully while it
 * streams. The run stays `running` with its text checkpointed and its lease handed off, and
 * runner B's very next recovery poll takes it over — with a 60 s lease, so nothing here waits
 * for a lease — and completes it. The watching page shows A's checkpointed text followed by
 * B's, nothing glued, nothing missing.
 */
const servers = loopbackServers();
afterEach(servers.closeAll);

const waitFor = <T>(check: () => T, timeout = 10_000) =>
  vi.waitFor(check, { timeout, interval: 5 });

const textOf = (parts: readonly { type: string; text?: string }[] | undefined) =>
  (parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
const shown = (state: RunState) => textOf(selectMessage(state)?.parts);

const LEASE_MS = 60_000;
const aWords = Array.from({ length: 1_000 }, (_, index) => `a${index} `);
const bWords = Array.from({ length: 12 }, (_, index) => `b${index} `);
const messages = [{ role: 'user' as const, content: 'Go' }];

describe('a graceful shutdown seen over loopback HTTP', () => {
  it('hands the streaming run to the next runner at once; the page shows A’s text then B’s', async () => {
    const runId = 'run-shutdown';
    const driver = createMemoryDriver();
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(driver);
    const a = createAgentRuntime({ store, events: hub, owner: 'runner-a', leaseMs: LEASE_MS });
    const b = createAgentRuntime({ store, events: hub, owner: 'runner-b', leaseMs: LEASE_MS });
    // Polled by hand: one tick after A closed proves the takeover does not wait for a lease.
    const recovery = createRunRecovery({
      store,
      runtime: b,
      intervalMs: LEASE_MS,
      resolveRun: () => ({ model: scriptedModel([{ tokenMs: 2, text: bWords }]), messages }),
    });
    const listener = toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime: hub, heartbeatMs: 200 }),
        basePath: '/api',
        authorize: 'public',
      }),
    );
    const { origin } = await servers.listen(listener);

    const started = a.startRun({
      runId,
      model: scriptedModel([{ tokenMs: 10, text: aWords }]),
      messages,
    });
    await started.created;
    const page = createRunlightClient({
      baseUrl: `${origin}/api`,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    }).run(runId);
    const seen: RunState[] = [];
    const stop = page.subscribe(() => seen.push(page.getState()));
    await waitFor(() => expect(shown(page.getState())).toContain('a5 '));

    await a.close();
    const handedOff = await started.done;
    expect(handedOff).toMatchObject({ status: 'running', owner: 'runner-a' });
    // The lease expired when it was handed off: recovery finds the run now, not in 60 s.
    expect(Date.parse(handedOff.leaseExpiresAt ?? '')).toBeLessThanOrEqual(Date.now());
    const checkpointed = textOf((await store.getSnapshot(runId)).assistant?.message.parts);
    expect(checkpointed).toContain('a5 ');
    expect(checkpointed.length).toBeLessThan(aWords.join('').length);
    expect(aWords.join('').startsWith(checkpointed)).toBe(true);
    expect(await store.findExpiredRuns()).toEqual([
      { runId, leaseExpiresAt: handedOff.leaseExpiresAt },
    ]);

    expect(await recovery.tick()).toEqual([
      expect.objectContaining({ runId, result: 'recovered' }),
    ]);
    await waitFor(async () =>
      expect(await store.getRun(runId)).toMatchObject({ status: 'completed', owner: 'runner-b' }),
    );
    const final = await store.getSnapshot(runId);
    const finalText = textOf(final.assistant?.message.parts);
    expect(finalText).toBe(`${checkpointed}${bWords.join('')}`);
    await waitFor(() => expect(page.getState().revision).toBe(final.revision));
    expect(shown(page.getState())).toBe(finalText);
    stop();
    // Every state the page showed is a prefix of the answer: nothing glued, nothing missing.
    for (const state of seen) {
      const text = shown(state);
      expect(finalText.startsWith(text), `shown: ${JSON.stringify(text)}`).toBe(true);
    }
    await recovery.stop();
    await b.close();
  });
});
