import { createRunlightClient, type RunlightClient, runHistoryOf, TICK_MS } from '@runlight/client';
import type { RunOperationEvent } from '@runlight/protocol';
import { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import { type FakeRunServer, fakeRunServerWithHistory } from '../../src/__tests__/fake-run-server';
import { RunlightProvider } from '../../src/provider/runlight-provider';
import { RunTimeline } from '../../src/timeline/run-timeline';
import { timelineHistory } from '../timeline-history';

/**
 * The Chromium bench page (built by Vite in production mode, so React's production build):
 * `window.runlightBench` renders `RunTimeline` and a plain-list baseline into this document and
 * times them with `performance.now()`. Driven by `run-timeline-chromium.ts`; every figure is
 * one sample, the driver takes medians.
 */

export interface FirstRenderSample {
  /** `root.render` inside `flushSync` until React returns: render and commit. */
  commitMs: number;
  /** …and until a forced style and layout (`offsetHeight`) returns: the frame's main work. */
  layoutMs: number;
  /**
   * From `root.render` to just after the browser's next frame (style, layout and paint of the
   * commit; no forced layout): a task posted from that frame's `requestAnimationFrame` runs after
   * it. Includes the wait for the frame's turn (vsync), so it is never below one frame's phase.
   */
  frameMs: number;
  rows: number;
  elements: number;
}

export interface UpdateSample {
  /** From the event's SSE bytes to the DOM change and a forced layout. */
  layoutMs: number;
  /** Table rows whose subtree the update changed. */
  rowsTouched: number;
  /** DOM mutation records of the update. */
  mutations: number;
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));
/** Resolves after the next frame has been rendered: a task posted from its animation frame. */
const afterNextFrame = () =>
  new Promise<number>((resolve) =>
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve(performance.now());
      channel.port2.postMessage(null);
    }),
  );
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const gc = () => (globalThis as { gc?: () => void }).gc?.();

function container(): HTMLElement {
  const element = document.createElement('div');
  document.body.append(element);
  return element;
}

interface Mounted {
  client: RunlightClient;
  server: FakeRunServer;
  events: RunOperationEvent[];
  runId: string;
}

/** A client whose history is loaded already: the measured render is `count` rows, not a fetch. */
async function loadedClient(count: number, inFlight: boolean): Promise<Mounted> {
  const run = timelineHistory(count, { inFlight });
  const { events, runId } = run;
  const server = fakeRunServerWithHistory(run);
  const client = createRunlightClient({ baseUrl: 'http://bench.test/api', fetch: server.fetch });
  const history = runHistoryOf(client, runId);
  const unsubscribe = history.subscribe(() => {});
  while (history.getState().status !== 'ready') await nextTask();
  // Keep the history subscribed until the timeline subscribes (no detach in between).
  queueMicrotask(() => setTimeout(unsubscribe, 50));
  return { client, server, events, runId };
}

function timeline(mounted: Mounted): ReactNode {
  return (
    <RunlightProvider client={mounted.client} queryClient={new QueryClient()}>
      <RunTimeline runId={mounted.runId} />
    </RunlightProvider>
  );
}

/** The baseline: one `<li>` of text per operation (its latest record), nothing else. */
function plainList(mounted: Mounted): ReactNode {
  const latest = new Map<string, RunOperationEvent>();
  for (const event of mounted.events) latest.set(event.operation.id, event);
  return (
    <ul>
      {[...latest.values()].map((event) => (
        <li key={event.operation.id}>
          {event.operation.kind} {event.operation.phase} {event.operation.startedAt}
        </li>
      ))}
    </ul>
  );
}

type Subject = 'timeline' | 'plain';
const draw = (subject: Subject, mounted: Mounted) =>
  subject === 'timeline' ? timeline(mounted) : plainList(mounted);

async function firstRender(subject: Subject, count: number): Promise<FirstRenderSample> {
  // Commit and forced layout.
  let mounted = await loadedClient(count, true);
  gc();
  await nextFrame();
  let element = container();
  let root: Root = createRoot(element);
  const start = performance.now();
  flushSync(() => root.render(draw(subject, mounted)));
  const committed = performance.now();
  void element.offsetHeight;
  const laidOut = performance.now();
  const rows = element.querySelectorAll('tr, li').length;
  const elements = element.querySelectorAll('*').length;
  root.unmount();
  element.remove();

  // The same render, left to the browser's own frame: time to the next animation frame.
  mounted = await loadedClient(count, true);
  gc();
  await nextFrame();
  element = container();
  root = createRoot(element);
  const frameStart = performance.now();
  flushSync(() => root.render(draw(subject, mounted)));
  const frame = await afterNextFrame();
  root.unmount();
  element.remove();
  await nextTask();
  return {
    commitMs: committed - start,
    layoutMs: laidOut - start,
    frameMs: Math.max(0, frame - frameStart),
    rows,
    elements,
  };
}

const OBSERVE = { subtree: true, childList: true, attributes: true, characterData: true };

function touchedRows(records: MutationRecord[]): number {
  const rows = new Set<Element>();
  for (const record of records) {
    const node = record.target;
    const element = node instanceof Element ? node : node.parentElement;
    const row = element?.closest('tr');
    if (row) rows.add(row);
  }
  return rows.size;
}

async function mountLive(count: number) {
  const mounted = await loadedClient(count, true);
  const element = container();
  const root = createRoot(element);
  flushSync(() => root.render(timeline(mounted)));
  // The run is live: wait for the client's event stream before sending into it.
  while (mounted.server.openStreams() === 0) await nextTask();
  // Watch the end of the run, where the operation in flight is (the table draws rows in view).
  const scroller = element.querySelector('[data-runlight-part="scroller"]')!;
  for (let frame = 0; frame < 120 && !element.querySelector('tr[data-in-flight]'); frame++) {
    scroller.scrollTop = scroller.scrollHeight;
    await nextFrame();
  }
  if (!element.querySelector('tr[data-in-flight]')) throw new Error('no row in flight in view');
  await nextFrame();
  return { mounted, element, root };
}

/** One live `run-operation` event (the request in flight gets its first output). */
async function liveUpdate(count: number): Promise<UpdateSample> {
  const { mounted, element, root } = await mountLive(count);
  const running = mounted.events.at(-1)!;
  const firstOutputAt = new Date().toISOString();
  const event: RunOperationEvent = {
    ...running,
    revision: running.revision + 1,
    at: firstOutputAt,
    operation: { ...running.operation, phase: 'first-output', firstOutputAt },
  };
  gc();
  await nextFrame();
  // React renders a store update in a scheduler task; the observer's callback runs in the
  // microtask after that commit.
  const records: MutationRecord[] = [];
  let observer: MutationObserver | undefined;
  const changed = new Promise<void>((resolve) => {
    observer = new MutationObserver((seen) => {
      records.push(...seen);
      resolve();
    });
    observer.observe(element, OBSERVE);
  });
  const start = performance.now();
  mounted.server.send(event);
  await changed;
  records.push(...observer!.takeRecords());
  void element.offsetHeight;
  const laidOut = performance.now();
  observer!.disconnect();
  const sample = {
    layoutMs: laidOut - start,
    rowsTouched: touchedRows(records),
    mutations: records.length,
  };
  root.unmount();
  element.remove();
  await nextTask();
  return sample;
}

/**
 * Clock ticks of the operation in flight: the elapsed clock's interval is wrapped, so each tick
 * is timed from its callback to the DOM change it causes (React commits it in a scheduler task;
 * the mutation observer runs right after) and a forced layout.
 */
async function ticks(count: number, wanted: number): Promise<UpdateSample[]> {
  const samples: UpdateSample[] = [];
  const original = window.setInterval;
  let element: HTMLElement | null = null;
  // When the last tick began; the commit it causes (a scheduler task later) ends the sample.
  let tickStart: number | null = null;
  const observer = new MutationObserver((records) => {
    if (tickStart === null || element === null) return;
    records.push(...observer.takeRecords());
    void element.offsetHeight;
    samples.push({
      layoutMs: performance.now() - tickStart,
      rowsTouched: touchedRows(records),
      mutations: records.length,
    });
    tickStart = null;
  });
  window.setInterval = ((handler: () => void, timeout?: number) =>
    original(() => {
      if (timeout === TICK_MS && element !== null) tickStart = performance.now();
      handler();
    }, timeout)) as typeof window.setInterval;
  try {
    const live = await mountLive(count);
    element = live.element;
    observer.observe(element, OBSERVE);
    const deadline = performance.now() + 10_000;
    while (samples.length < wanted && performance.now() < deadline) await nextFrame();
    element = null;
    observer.disconnect();
    live.root.unmount();
    live.element.remove();
  } finally {
    window.setInterval = original;
  }
  return samples;
}

declare global {
  interface Window {
    runlightBench: {
      firstRender: typeof firstRender;
      liveUpdate: typeof liveUpdate;
      ticks: typeof ticks;
    };
  }
}

window.runlightBench = { firstRender, liveUpdate, ticks };
document.body.dataset.ready = '';
