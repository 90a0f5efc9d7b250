// Type-checked (never run) against the packed packages' declarations, with `strict` and
// `exactOptionalPropertyTypes`, under `moduleResolution` NodeNext and Bundler.

import { createServer } from 'node:http';
import {
  createRunlightClient,
  inspectRunlightClient,
  type RunState,
  runLogOf,
  selectActivity,
} from '@runlight/client';
import { type AgentRun, RunSnapshotSchema } from '@runlight/protocol';
import {
  OperationIndicator,
  RunlightProvider,
  RunStatus,
  useRun,
  useRunActivity,
} from '@runlight/react';
import { prefetchRun, runQueryKey } from '@runlight/react/server';
import { RunlightDevtools } from '@runlight/react-devtools';
import { RunlightDevtools as ProductionDevtools } from '@runlight/react-devtools/production';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { createPostgresDriver, migrate } from '@runlight/store-postgres';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useRef } from 'react';

export async function server(pool: Parameters<typeof migrate>[0]): Promise<AgentRun> {
  await migrate(pool);
  const store = createAgentRuntimeStore(
    process.env.DATABASE_URL ? createPostgresDriver({ client: pool }) : createMemoryDriver(),
  );
  const runtime = createAgentRuntime({ store, owner: 'worker-a' });
  const route = createRunRouter({
    handlers: createRunHandlers({ store, runtime }),
    basePath: '/api',
    authorize: async ({ request, action }) =>
      action === 'read' && request.headers.get('authorization') === 'Bearer demo',
  });
  createServer(toNodeListener(route)).listen(3000);
  const { done } = runtime.startRun({
    runId: 'run-1',
    model: scriptedModel([{ text: 'Hello.' }]),
    messages: [{ role: 'user', content: 'Say hello.' }],
  });
  return done;
}

export function parse(body: unknown): string {
  return RunSnapshotSchema.parse(body).run.status;
}

const client = createRunlightClient({ baseUrl: '/api' });
const queryClient = new QueryClient();

function Transcript({ runId }: { runId: string }): ReactNode {
  const { message } = useRun(runId);
  const kind = useRunActivity(runId).kind;
  const revision = useRun(runId, { select: (state: RunState) => state.revision });
  return (
    <p data-kind={kind} data-revision={revision}>
      {message?.parts.length ?? 0}
    </p>
  );
}

export function App({ runId }: { runId: string }): ReactNode {
  const status = useRef<HTMLDivElement>(null);
  const indicator = useRef<HTMLSpanElement>(null);
  return (
    <QueryClientProvider client={queryClient}>
      <RunlightProvider client={client}>
        <RunStatus runId={runId} ref={status} className="status" />
        <RunStatus runId={runId} ref={(element) => element?.focus()}>
          {(activity, elapsedMs) => `${activity.kind} ${elapsedMs ?? 0}`}
        </RunStatus>
        <OperationIndicator runId={runId} ref={indicator} unstyled />
        <Transcript runId={runId} />
        <RunlightDevtools position="top-left" theme="dark" />
      </RunlightProvider>
      <ProductionDevtools client={client} initialIsOpen recovers />
      <RunlightProvider baseUrl="/api" queryClient={queryClient}>
        <RunStatus runId={runId} />
      </RunlightProvider>
    </QueryClientProvider>
  );
}

export async function prefetch(runId: string): Promise<readonly string[]> {
  await prefetchRun(queryClient, client, runId);
  return runQueryKey(runId);
}

export const kind: string = selectActivity(client.run('run-1').getState()).kind;

/** What the devtools read of a client: its stores and their durable logs. */
export const logged: number =
  inspectRunlightClient(client)
    ?.stores()
    .reduce((sum, store) => sum + runLogOf(store).getState().entries.length, 0) ?? 0;
