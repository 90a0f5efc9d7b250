import { createRunlightClient, type RunState, selectMessage } from '@runlight/client';
import {
  modelRequestOperation as modelRequest,
  RUN_ID,
  snapshot,
  textDelta,
} from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import {
  Profiler,
  type ProfilerOnRenderCallback,
  type ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';
import { createRoot } from 'react-dom/client';
import { afterAll, bench, describe } from 'vitest';
import { fakeRunServer } from '../src/__tests__/fake-run-server';
import { useRun } from '../src/hooks/use-run';
import { useRunActivity } from '../src/hooks/use-run-activity';
import { RunlightContext } from '../src/provider/runlight-context';
import { RunlightProvider } from '../src/provider/runlight-provider';
import { RunStatus } from '../src/status/run-status';

/**
 * Renders and React commit time while an answer streams through the real pipeline: SSE text
 * from an injected transport → client store → hooks. Every delta arrives as its own network
 * chunk, and React commits on its own schedule (no `act`). Figures are printed at the end
 * (`npx vitest bench --run --project react`); times are React's `Profiler.actualDuration`
 * (development build), compared as ratios against a baseline in the same run.
 */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Meter {
  renders: number;
  commits: number;
  commitMs: number;
}
const meter = (): Meter => ({ renders: 0, commits: 0, commitMs: 0 });
const profile =
  (target: Meter): ProfilerOnRenderCallback =>
  (_id, _phase, actualDuration) => {
    target.commits++;
    target.commitMs += actualDuration;
  };

function TranscriptWithUseRun({ meter: m }: { meter: Meter }) {
  m.renders++;
  const { message } = useRun(RUN_ID);
  const part = message?.parts[0];
  return <p>{part && 'text' in part ? part.text : ''}</p>;
}

function StatusWithUseRunActivity({ meter: m }: { meter: Meter }) {
  m.renders++;
  return <span>{useRunActivity(RUN_ID).kind}</span>;
}

/**
 * The same pipeline bound the way the style guide warns against: subscribe in `useEffect`, copy
 * the selected message into `useState`. A baseline for the binding alone (same transport,
 * same client merge).
 */
function TranscriptWithEffectState({ meter: m }: { meter: Meter }) {
  m.renders++;
  const { client } = useContext(RunlightContext)!;
  const store = client.run(RUN_ID);
  const [message, setMessage] = useState(() => selectMessage(store.getState()));
  useEffect(
    () => store.subscribe(() => setMessage(selectMessage(store.getState() as RunState))),
    [store],
  );
  const part = message?.parts[0];
  return <p>{part && 'text' in part ? part.text : ''}</p>;
}

/** Streams `deltas` text deltas into a fresh client and tree; returns when all are merged. */
async function stream(deltas: number, tree: ReactNode): Promise<void> {
  const server = fakeRunServer({
    json: snapshot(3, { lastOperation: modelRequest('first-output') }),
  });
  const client = createRunlightClient({ baseUrl: 'http://bench.test/api', fetch: server.fetch });
  const container = document.createElement('div');
  const root = createRoot(container);
  root.render(
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {tree}
    </RunlightProvider>,
  );
  while (server.openStreams() === 0) await nextTask();
  for (let seq = 1; seq <= deltas; seq++) {
    server.send(textDelta(0, seq, `word${seq} `));
    await nextTask();
  }
  for (let wait = 0; wait < 10; wait++) await nextTask();
  root.unmount();
  await nextTask();
}

/** The baseline: the same growing text held in plain `useState`, one update per delta. */
function PlainTranscript({
  meter: m,
  sink,
}: {
  meter: Meter;
  sink: { append: (text: string) => void };
}) {
  m.renders++;
  const [text, setText] = useState('');
  useEffect(() => {
    sink.append = (delta) => setText((previous) => previous + delta);
  }, [sink]);
  return <p>{text}</p>;
}

async function streamWithUseState(deltas: number, m: Meter): Promise<void> {
  const sink = { append: (_text: string) => {} };
  const root = createRoot(document.createElement('div'));
  root.render(
    <Profiler id="plain" onRender={profile(m)}>
      <PlainTranscript meter={meter()} sink={sink} />
    </Profiler>,
  );
  await nextTask();
  for (let seq = 1; seq <= deltas; seq++) {
    sink.append(`word${seq} `);
    await nextTask();
  }
  root.unmount();
  await nextTask();
}

const figures: Record<string, Meter[]> = {};
const record = (name: string, m: Meter) => {
  if (!figures[name]) figures[name] = [];
  figures[name].push(m);
};
const options = { iterations: 3, warmupIterations: 1, time: 0, warmupTime: 0 };

describe('renders per 1,000 deltas', () => {
  bench(
    'useRun transcript + useRunActivity status, 1,000 deltas',
    async () => {
      const transcript = meter();
      const status = meter();
      const runStatus = meter();
      await stream(
        1000,
        <>
          <TranscriptWithUseRun meter={transcript} />
          <StatusWithUseRunActivity meter={status} />
          <Profiler id="run-status" onRender={profile(runStatus)}>
            <RunStatus runId={RUN_ID} />
          </Profiler>
        </>,
      );
      record('useRun renders / 1,000 deltas', transcript);
      record('useRunActivity renders / 1,000 deltas', status);
      record('RunStatus commits / 1,000 deltas', runStatus);
    },
    options,
  );
});

const long = { iterations: 2, warmupIterations: 0, time: 0, warmupTime: 0 };

describe('React commit time, 10,000-delta answer', () => {
  bench(
    'baseline: plain useState transcript, no transport',
    async () => {
      const m = meter();
      await streamWithUseState(10_000, m);
      record('baseline useState, no transport', m);
    },
    long,
  );
  bench(
    'baseline: same pipeline, useEffect + useState binding',
    async () => {
      const m = meter();
      await stream(
        10_000,
        <Profiler id="effect-state" onRender={profile(m)}>
          <TranscriptWithEffectState meter={meter()} />
        </Profiler>,
      );
      record('baseline useEffect + useState binding', m);
    },
    long,
  );
  bench(
    'useRun transcript (SSE → store → useSyncExternalStore)',
    async () => {
      const m = meter();
      await stream(
        10_000,
        <Profiler id="transcript" onRender={profile(m)}>
          <TranscriptWithUseRun meter={meter()} />
        </Profiler>,
      );
      record('useRun transcript', m);
    },
    long,
  );
  bench(
    'RunStatus beside the streaming answer',
    async () => {
      const m = meter();
      await stream(
        10_000,
        <>
          <TranscriptWithUseRun meter={meter()} />
          <Profiler id="status" onRender={profile(m)}>
            <RunStatus runId={RUN_ID} />
          </Profiler>
        </>,
      );
      record('RunStatus beside it', m);
    },
    long,
  );
});

afterAll(() => {
  const mean = (runs: Meter[], pick: (m: Meter) => number) =>
    runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  const lines = Object.entries(figures).map(([name, runs]) => {
    const renders = mean(runs, (m) => m.renders);
    const commits = mean(runs, (m) => m.commits);
    const commitMs = mean(runs, (m) => m.commitMs);
    const what =
      commits === 0
        ? `renders ${renders.toFixed(0)}`
        : `commits ${commits.toFixed(0)}, React commit time ${commitMs.toFixed(1)} ms`;
    return `  ${name.padEnd(42)} ${what}`;
  });
  const ours = figures['useRun transcript'];
  for (const baseline of [
    'baseline useState, no transport',
    'baseline useEffect + useState binding',
  ]) {
    const base = figures[baseline];
    if (!base || !ours) continue;
    const ratio = mean(ours, (m) => m.commitMs) / mean(base, (m) => m.commitMs);
    lines.push(`  commit time ratio useRun transcript / ${baseline}: ${ratio.toFixed(2)}`);
  }
  console.log(
    `\n@runlight/react render figures (mean per run, warmups included)\n${lines.join('\n')}`,
  );
});
