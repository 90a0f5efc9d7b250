import type { RunEvent } from '@runlight/protocol';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import type { RunStore } from '../run-store';
import { selectMessage } from '../select/select-message';
import { shareTabs } from '../tabs/tab-shared-fetch';
import { FakeBrowser, type FakeTab } from './fake-tabs';
import { ServerSim } from './server-sim';

/**
 * Issue 48: tabs of one origin share one event stream; the followers take over from the cursor
 * they hold when the leading tab closes or sleeps, at any point — no gap, no duplicate. The
 * tabs are real `RunStore`s over `shareTabs`, on a fake `BroadcastChannel` / Web Locks whose
 * deliveries the property schedules (`FakeBrowser`), against a server in miniature
 * (`ServerSim`: the runtime's reference reducer, the SSE handler's resume rules).
 *
 * Each tab's store must: never see an error or a `gap` phase (a missing revision or delta),
 * receive every durable revision after its snapshot exactly once and in order, every delta of a
 * write at most once and in order, and end showing the server's message. The server must end
 * with one open stream for all the tabs.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 40);
const T0 = Date.UTC(2026, 11, 5, 10);
const BASE = 'http://app.test/api';

/** Serves `GET …/runs/run-1/events` from the sim: resume from the cursor, then live. */
class SimStreams {
  readonly open = new Set<{ write: (event: RunEvent) => void; close: () => void }>();
  opened = 0;
  #published = 0;

  constructor(readonly sim: ServerSim) {}

  fetch: typeof globalThis.fetch = async (_input, init) => {
    const cursor = new Headers(init?.headers).get('last-event-id') ?? '0';
    const answer = this.sim.resume(cursor);
    if (answer === 'reset') throw new Error(`the sim answered reset to ${cursor}`);
    this.opened++;
    let [revision, base, seq] = cursor.split(':').map(Number) as [number, number?, number?];
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        this.open.delete(stream);
      },
    });
    const stream = {
      write: (event: RunEvent) => {
        if (event.type === 'run-delta') {
          base = event.baseRevision;
          seq = event.seq;
        } else if ('revision' in event) {
          revision = event.revision;
          if (event.type === 'assistant-append' || event.type === 'assistant-checkpoint')
            base = seq = undefined;
        }
        const id = base === undefined ? `${revision}` : `${revision}:${base}:${seq}`;
        const text = `event: ${event.type}\nid: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
        controller.enqueue(encoder.encode(text));
      },
      close: () => {
        this.open.delete(stream);
        try {
          controller.close();
        } catch {}
      },
    };
    init?.signal?.addEventListener('abort', () => stream.close());
    this.open.add(stream);
    for (const event of answer) stream.write(event);
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };

  /** Sends what the sim published since the last call to every open stream. */
  publish(): void {
    const events = this.sim.published.slice(this.#published);
    this.#published = this.sim.published.length;
    for (const event of events) for (const stream of this.open) stream.write(event);
  }
}

interface Page {
  tab: FakeTab;
  store: RunStore;
  unsubscribe: () => void;
  /** Every message its store was given, in order. */
  received: RunEvent[];
  problems: string[];
  snapshotRevision: number | null;
}

function openPage(browser: FakeBrowser, server: SimStreams): Page {
  const tab = browser.open();
  // The tab's connections end when it closes, as a browser's do.
  const network: typeof globalThis.fetch = (input, init) =>
    tab.closed
      ? Promise.reject(new TypeError('the tab closed'))
      : server.fetch(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, tab.signal]) : tab.signal,
        });
  const shared = shareTabs({ baseUrl: BASE, fetch: network, environment: tab.environment });
  const page: Page = {
    tab,
    store: null as unknown as RunStore,
    unsubscribe: () => {},
    received: [],
    problems: [],
    snapshotRevision: null,
  };
  const recording: typeof globalThis.fetch = async (input, init) => {
    const response = await shared(input, init);
    if (response.status !== 200 || response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    const parser = createParser({
      onEvent: (message) => page.received.push(JSON.parse(message.data) as RunEvent),
    });
    void (async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read())
        parser.feed(read.value);
    })().catch(() => {});
    return new Response(theirs, { status: 200, headers: response.headers });
  };
  const client = createRunlightClient({
    baseUrl: BASE,
    fetch: recording,
    shareTabs: false,
    loadSnapshot: async () => {
      const snapshot = server.sim.snapshot();
      page.snapshotRevision ??= snapshot.revision;
      return { snapshot: structuredClone(snapshot), clockOffsetMs: 0 };
    },
  });
  page.store = client.run('run-1');
  const stop = page.store.subscribe(() => {
    const state = page.store.getState();
    if (state.phase === 'gap') page.problems.push(`gap at revision ${state.revision}`);
    if (state.error !== null) page.problems.push(`error: ${state.error.message}`);
  });
  page.unsubscribe = stop;
  return page;
}

/**
 * Lets everything the last step started run: promises, stream reads, and the stores' zero-delay
 * timers (a store closes its connection a tick after its last subscriber) — timers of one delay
 * fire in the order they were set, so this decides nothing by the machine's speed.
 */
async function settle(): Promise<void> {
  for (let round = 0; round < 4; round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
  }
}

const STEP = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'delta' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deliver' as const), count: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'open-tab' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'close-leader' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close-tab' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'sleep-leader' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wake-all' as const }) },
);

describe('tabs share one stream (shareTabs)', () => {
  it(`takes over from each tab's cursor at any point: no gap, no duplicate (seed ${SEED}, ${RUNS} runs; replay with FC_SEED=${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(STEP, { minLength: 1, maxLength: 40 }),
        async (initialTabs, steps) => {
          let clock = T0;
          const sim = new ServerSim('run-1', () => {
            clock += 1_000;
            return new Date(clock);
          });
          sim.create();
          sim.acquire();
          sim.delta({ type: 'start-step' });
          sim.delta({ type: 'text-start', id: 't' });
          const server = new SimStreams(sim);
          server.publish();
          const browser = new FakeBrowser();
          const pages: Page[] = [];
          const leaderPage = () => pages.find((page) => browser.leader() === page.tab);
          for (let i = 0; i < initialTabs; i++) pages.push(openPage(browser, server));
          await settle();
          let word = 0;
          for (const step of steps) {
            if (step.kind === 'delta') {
              sim.delta({ type: 'text-delta', id: 't', delta: `w${word++} ` });
              server.publish();
            } else if (step.kind === 'checkpoint') {
              sim.checkpoint();
              server.publish();
            } else if (step.kind === 'deliver') browser.deliver(step.count);
            else if (step.kind === 'open-tab') pages.push(openPage(browser, server));
            else if (step.kind === 'close-leader') leaderPage()?.tab.close();
            else if (step.kind === 'close-tab') {
              const open = pages.filter((page) => !page.tab.closed);
              if (open.length > 1) open[step.pick % open.length]!.tab.close();
            } else if (step.kind === 'sleep-leader') leaderPage()?.tab.sleep(true);
            else for (const page of pages) page.tab.sleep(false);
            await settle();
          }
          for (const page of pages) page.tab.sleep(false);
          // Everything in flight arrives; the tabs settle on one leader.
          for (let round = 0; round < 20; round++) {
            browser.deliver();
            await settle();
          }
          const truth = sim.message.parts.flatMap((part) =>
            part.type === 'text' ? [part.text] : [],
          );
          const open = pages.filter((page) => !page.tab.closed);
          for (const page of open) {
            expect(page.problems).toEqual([]);
            const state = page.store.getState();
            expect(state.connection).toBe('live');
            expect(state.revision).toBe(sim.record!.run.revision);
            const shown = selectMessage(state)?.parts.flatMap((part) =>
              part.type === 'text' ? [part.text] : [],
            );
            expect(shown).toEqual(truth);
            // Durable revisions after the snapshot: each once, in order, none missing.
            const revisions = page.received.flatMap((event) =>
              event.type !== 'run-delta' && 'revision' in event ? [event.revision] : [],
            );
            const first = (page.snapshotRevision ?? 0) + 1;
            expect(revisions).toEqual(
              Array.from({ length: revisions.length }, (_, index) => first + index),
            );
            // Deltas: each at most once, in order on its write.
            const seen = new Set<string>();
            let last: { base: number; seq: number } | null = null;
            for (const event of page.received) {
              if (event.type !== 'run-delta') continue;
              const key = `${event.baseRevision}:${event.seq}`;
              expect(seen.has(key)).toBe(false);
              seen.add(key);
              if (last !== null && last.base === event.baseRevision)
                expect(event.seq).toBe(last.seq + 1);
              last = { base: event.baseRevision, seq: event.seq };
            }
          }
          if (open.length > 0) expect(server.open.size).toBe(1);
          for (const page of pages) page.unsubscribe();
          await settle();
          expect(server.open.size).toBe(0);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  }, 240_000);
});
