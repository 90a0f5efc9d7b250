'use client';

import { createRunlightClient } from '@runlight/client';
import {
  RunTimeline as PackagedRunTimeline,
  RunlightProvider,
  RunStatus,
  type RunStatusLabelsInput,
} from '@runlight/react';
import { QueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { ApprovalCard } from '@/components/runlight/approval-card';
import { BetweenSteps } from '@/components/runlight/between-steps';
import { CompactionNotice } from '@/components/runlight/compaction-notice';
import { ElapsedTimer } from '@/components/runlight/elapsed-timer';
import { OperationIndicator } from '@/components/runlight/operation-indicator';
import { RetryCountdown } from '@/components/runlight/retry-countdown';
import { RunListRow } from '@/components/runlight/run-list-row';
import { RunStatusPill } from '@/components/runlight/run-status-pill';
import { RunTimeline } from '@/components/runlight/run-timeline';
import { StalledBanner } from '@/components/runlight/stalled-banner';
import { type GalleryState, galleryStates } from './gallery-states';

declare global {
  interface Window {
    /** Bodies of the control requests the components sent (the test reads them). */
    runlightControls: { url: string; body: unknown }[];
  }
}

/** The server side of the gallery: snapshots, operation pages, quiet event streams. */
function galleryFetch(states: GalleryState[]): typeof fetch {
  const byId = new Map(states.map((state) => [state.id, state]));
  window.runlightControls = [];
  return async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const [, , , id, tail] = url.pathname.split('/');
    const state = byId.get(decodeURIComponent(id ?? ''));
    if (init?.method === 'POST') {
      window.runlightControls.push({ url: url.pathname, body: JSON.parse(String(init.body)) });
      return new Response(null, { status: 202 });
    }
    if (state === undefined) return new Response(null, { status: 404 });
    if (tail === 'events') {
      // Open and quiet: the snapshot is the whole story.
      return new Response(new ReadableStream({ start() {} }), {
        headers: { 'content-type': 'text/event-stream' },
      });
    }
    if (tail === 'operations') {
      return Response.json({
        runId: state.id,
        operations: state.operations,
        nextAfter: null,
        revision: (state.snapshot as { revision: number }).revision,
      });
    }
    return Response.json(state.snapshot);
  };
}

function Card({
  state,
  labels,
  recovers = false,
  children,
}: {
  state: GalleryState;
  labels?: RunStatusLabelsInput;
  /** Whether anything recovers the run when it stalls: the status says so only then. */
  recovers?: boolean;
  children?: ReactNode;
}) {
  return (
    <article
      data-state={state.id}
      aria-labelledby={`title-${state.id}`}
      className="flex flex-col gap-3 rounded-xl border border-border bg-card p-4 text-card-foreground"
    >
      <header className="flex items-center justify-between gap-2">
        <h2 id={`title-${state.id}`} className="text-sm font-semibold">
          {state.title}
        </h2>
        <span className="flex items-center gap-2 text-sm">
          <OperationIndicator runId={state.id} recovers={recovers} />
          <ElapsedTimer runId={state.id} />
        </span>
      </header>
      <RunStatusPill
        runId={state.id}
        recovers={recovers}
        {...(labels === undefined ? {} : { labels })}
      />
      {/* The packaged component (no Tailwind, its own default styles) meets the same bar. */}
      <div className="text-sm" data-packaged="">
        <RunStatus
          runId={state.id}
          recovers={recovers}
          {...(labels === undefined ? {} : { labels })}
        />
      </div>
      {children}
    </article>
  );
}

export function Gallery() {
  const [setup, setSetup] = useState<{
    states: GalleryState[];
    client: ReturnType<typeof createRunlightClient>;
    queryClient: QueryClient;
  } | null>(null);
  useEffect(() => {
    const dark = new URLSearchParams(location.search).get('theme') === 'dark';
    document.documentElement.classList.toggle('dark', dark);
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
    const states = galleryStates(Date.now());
    const client = createRunlightClient({
      baseUrl: `${location.origin}/api`,
      fetch: galleryFetch(states),
    });
    setSetup({ states, client, queryClient: new QueryClient() });
  }, []);
  if (setup === null) return null;
  const { states, client, queryClient } = setup;
  const of = (id: string) => states.find((state) => state.id === id)!;
  return (
    <RunlightProvider client={client} queryClient={queryClient}>
      <main className="mx-auto flex max-w-6xl flex-col gap-6 p-6">
        <h1 className="text-xl font-semibold">Runlight components, every state</h1>
        <div className="grid grid-cols-1 gap-4 md:grid-cols-2 lg:grid-cols-3">
          <Card state={of('waiting')} />
          <Card state={of('retry')}>
            <RetryCountdown runId="retry" />
            <RunTimeline runId="retry" title="Timeline" />
          </Card>
          <Card state={of('streaming')} />
          <Card state={of('working')}>
            <BetweenSteps runId="working" />
          </Card>
          <Card state={of('between-steps')}>
            <BetweenSteps runId="between-steps" />
            <RunTimeline runId="between-steps" title="Timeline" />
          </Card>
          <Card state={of('compacting')}>
            <CompactionNotice runId="compacting" />
          </Card>
          <Card state={of('approval')}>
            <ApprovalCard runId="approval" />
          </Card>
          <Card state={of('stalled-recovers')} recovers>
            <StalledBanner runId="stalled-recovers" recovers />
          </Card>
          {/* The default label claims no recovery: nothing recovers this one. */}
          <Card state={of('stalled-stuck')}>
            <StalledBanner runId="stalled-stuck" recovers={false} />
          </Card>
          <Card state={of('completed')}>
            <RunTimeline runId="completed" title="Timeline" />
            <div className="text-sm" data-packaged="">
              <PackagedRunTimeline runId="completed" />
            </div>
          </Card>
          <Card state={of('failed-provider')} />
          <Card state={of('failed-storage')} />
          <Card state={of('failed-ownership')} />
          <Card state={of('cancelled')} />
        </div>
        <section
          aria-labelledby="runs-title"
          className="rounded-xl border border-border bg-card p-4"
        >
          <h2 id="runs-title" className="mb-2 text-sm font-semibold">
            Runs
          </h2>
          <ul className="flex flex-col">
            {states
              .filter((state) => /^(completed|failed|cancelled)/.test(state.id))
              .map((state) => {
                const run = (state.snapshot as { run: Parameters<typeof RunListRow>[0]['run'] })
                  .run;
                return <RunListRow key={state.id} run={run} href={`#${state.id}`} />;
              })}
          </ul>
        </section>
      </main>
    </RunlightProvider>
  );
}
