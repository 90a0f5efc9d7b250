import { createRunlightClient, runHistoryOf } from '@runlight/client';
import type { RunOperationEvent } from '@runlight/protocol';
import { QueryClient } from '@tanstack/react-query';
import { Profiler, type ProfilerOnRenderCallback } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { afterAll, bench, describe } from 'vitest';
import { fakeRunServerWithHistory } from '../src/__tests__/fake-run-server';
import { RunlightProvider } from '../src/provider/runlight-provider';
import { RunTimeline } from '../src/timeline/run-timeline';
import { timelineHistory } from './timeline-history';

/**
 * A relative figure, not the frame budget: React's `Profiler.actualDuration` of `RunTimeline`'s
 * first commit and of a clock tick for a run of 50 and 500 operations (`timelineHistory`),
 * against a plain `<ul>` with one text `<li>` per operation in the same run — React's
 * development build in jsdom, which has no layout. The figure held against one frame (16.7 ms)
 * is the production build in Chromium: `pnpm bench:timeline` (`browser/run-timeline-chromium.ts`).
 * `npx vitest bench --run --project react`.
 */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

function clientFor(count: number, inFlight: boolean) {
  const history = timelineHistory(count, { inFlight });
  const { events, runId } = history;
  const { fetch } = fakeRunServerWithHistory(history);
  const client = createRunlightClient({ baseUrl: 'http://bench.test/api', fetch });
  return { client, events, runId };
}

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));
const figures: Record<string, number[]> = {};
const record = (name: string, value: number) => {
  figures[name] ??= [];
  figures[name].push(value);
};

async function timeline(count: number): Promise<void> {
  // The last request is in flight: its bar grows on the elapsed clock's ticks.
  const { client, runId } = clientFor(count, true);
  const history = runHistoryOf(client, runId);
  // Load first, so the measured commit is the render of `count` rows, not the fetch.
  const unsubscribe = history.subscribe(() => {});
  while (history.getState().status !== 'ready') await nextTask();
  let commitMs = 0;
  let commits = 0;
  const onRender: ProfilerOnRenderCallback = (_id, _phase, actual) => {
    commitMs += actual;
    commits++;
  };
  const root = createRoot(document.createElement('div'));
  flushSync(() =>
    root.render(
      <RunlightProvider client={client} queryClient={new QueryClient()}>
        <Profiler id="timeline" onRender={onRender}>
          <RunTimeline runId={runId} unstyled />
        </Profiler>
      </RunlightProvider>,
    ),
  );
  record(`RunTimeline ${count} operations`, commitMs);
  // Ticks: only the scale and the running row re-render (rows are memoised).
  commitMs = 0;
  commits = 0;
  await new Promise((resolve) => setTimeout(resolve, 450));
  if (commits > 0) record(`RunTimeline ${count} tick`, commitMs / commits);
  root.unmount();
  unsubscribe();
  await nextTask();
}

function plainList(count: number): void {
  const latest = new Map<string, RunOperationEvent>();
  for (const event of clientFor(count, false).events) latest.set(event.operation.id, event);
  const events = [...latest.values()];
  let commitMs = 0;
  const root = createRoot(document.createElement('div'));
  flushSync(() =>
    root.render(
      <Profiler id="plain" onRender={(_id, _phase, actual) => (commitMs += actual)}>
        <ul>
          {events.map((event) => (
            <li key={event.operation.id}>
              {event.operation.kind} {event.operation.phase} {event.operation.startedAt}
            </li>
          ))}
        </ul>
      </Profiler>,
    ),
  );
  record(`plain <ul> ${count} operations`, commitMs);
  root.unmount();
}

const options = { iterations: 5, warmupIterations: 2, time: 0, warmupTime: 0 };

describe('RunTimeline first render', () => {
  bench('RunTimeline, 50 operations', () => timeline(50), options);
  bench('RunTimeline, 500 operations', () => timeline(500), options);
  bench('baseline: plain <ul>, 500 operations', () => plainList(500), options);
});

afterAll(() => {
  const median = (values: number[] = []) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  const t50 = median(figures['RunTimeline 50 operations']);
  const t500 = median(figures['RunTimeline 500 operations']);
  const plain = median(figures['plain <ul> 500 operations']);
  const tick50 = median(figures['RunTimeline 50 tick']);
  const tick500 = median(figures['RunTimeline 500 tick']);
  console.log(
    [
      'RunTimeline first commit, relative figure (median React actualDuration, development build, jsdom, no layout; the frame budget is `pnpm bench:timeline`):',
      `  50 operations:  ${t50.toFixed(2)} ms`,
      `  500 operations: ${t500.toFixed(2)} ms`,
      `  baseline plain <ul> of 500: ${plain.toFixed(2)} ms → ratio ${(t500 / plain).toFixed(2)}×`,
      `  500 / 50: ${(t500 / t50).toFixed(2)}×`,
      'RunTimeline commit per clock tick while an operation is in flight (the live path):',
      `  50 operations:  ${tick50.toFixed(3)} ms`,
      `  500 operations: ${tick500.toFixed(3)} ms (${(tick500 / tick50).toFixed(2)}× the 50-operation tick)`,
    ].join('\n'),
  );
});
