import { createRunlightClient, type RunlightClient } from '@runlight/client';
import type { RunOperationEvent } from '@runlight/protocol';
import { at, operationEvent, RUN_ID, snapshot } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { Profiler, type ProfilerOnRenderCallback } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { afterAll, bench, describe } from 'vitest';
import { fakeRunServer } from '../src/__tests__/fake-run-server';
import { RunTimeline } from '../src/run-timeline';
import { RunlightProvider } from '../src/runlight-provider';

/**
 * Render cost of `RunTimeline` for a run of 50 and 500 operations (the budget: a
 * 500-operation run within one 16.7 ms frame), against a baseline in the same run: a plain
 * `<ul>` with one text `<li>` per operation. Times are React's `Profiler.actualDuration` of the
 * first commit and of a commit after one more operation arrives (development build, jsdom), so
 * compare the ratios, not the absolute numbers. `npx vitest bench --run --project react`.
 */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

/** `count` operation events: model requests of 2 events each (started, completed). */
function operations(count: number, inFlight = false): RunOperationEvent[] {
  const events: RunOperationEvent[] = [];
  for (let index = 0; events.length < count; index++) {
    const id = `model-request:step-${index}:call:attempt-1`;
    const last = inFlight && events.length === count - 1;
    // The request in flight started a second ago, so its time ticks at 0.1 s resolution.
    const startedAt = last ? new Date(Date.now() - 1000).toISOString() : at(index * 3);
    const base = { id, kind: 'model-request' as const, step: index, attempt: 1, startedAt };
    events.push(operationEvent(events.length + 2, { ...base, phase: 'started' }));
    if (events.length < count - (inFlight ? 1 : 0)) {
      events.push(
        operationEvent(events.length + 2, {
          ...base,
          phase: 'completed',
          firstOutputAt: at(index * 3 + 1),
          endedAt: at(index * 3 + 2),
        }),
      );
    }
  }
  return events;
}

function clientFor(history: RunOperationEvent[]): RunlightClient {
  const revision = (history.at(-1)?.revision ?? 1) + 1;
  const server = fakeRunServer({ json: snapshot(revision, { status: 'completed' }) });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (String(input).includes('/operations')) {
      return Response.json({ runId: RUN_ID, operations: history, nextAfter: null, revision });
    }
    return server.fetch(input, init);
  };
  return createRunlightClient({ baseUrl: 'http://bench.test/api', fetch });
}

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));
const figures: Record<string, number[]> = {};
const record = (name: string, value: number) => {
  figures[name] ??= [];
  figures[name].push(value);
};

async function timeline(count: number): Promise<void> {
  // The last request is in flight: its bar grows on the elapsed clock's ticks.
  const client = clientFor(operations(count, true));
  const history = client.history(RUN_ID);
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
          <RunTimeline runId={RUN_ID} unstyled />
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
  const events = operations(count);
  let commitMs = 0;
  const root = createRoot(document.createElement('div'));
  flushSync(() =>
    root.render(
      <Profiler id="plain" onRender={(_id, _phase, actual) => (commitMs += actual)}>
        <ul>
          {events.map((event) => (
            <li key={event.revision}>
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
      'RunTimeline first commit (median React actualDuration, development build, jsdom):',
      `  50 operations:  ${t50.toFixed(2)} ms`,
      `  500 operations: ${t500.toFixed(2)} ms (frame budget 16.7 ms: ${t500 <= 16.7 ? 'within' : 'over'})`,
      `  baseline plain <ul> of 500: ${plain.toFixed(2)} ms → ratio ${(t500 / plain).toFixed(2)}×`,
      `  500 / 50: ${(t500 / t50).toFixed(2)}×`,
      'RunTimeline commit per clock tick while an operation is in flight (the live path):',
      `  50 operations:  ${tick50.toFixed(3)} ms`,
      `  500 operations: ${tick500.toFixed(3)} ms (frame budget 16.7 ms: ${tick500 <= 16.7 ? 'within' : 'over'}; ${(tick500 / tick50).toFixed(2)}× the 50-operation tick)`,
    ].join('\n'),
  );
});
