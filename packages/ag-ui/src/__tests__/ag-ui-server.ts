import { verifyEvents } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import {
  type AgentRuntime,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { listenOnLoopback } from '@runlight/test-utils';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { AgUiRunOptions } from '../server/ag-ui-route-options';
import { createAgUiRoute } from '../server/create-ag-ui-route';

/** The real runtime (in-memory store) behind `createAgUiRoute` on loopback HTTP. */
export interface AgUiServer {
  url: string;
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  close(): Promise<void>;
}

export async function serveAgUi(
  run: () => AgUiRunOptions,
  options: {
    authorize?: Authorize | 'public';
    store?: AgentRuntimeStore;
    checkpointEveryEvents?: number;
    reauthorizeMs?: number;
  } = {},
): Promise<AgUiServer> {
  const store = options.store ?? createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({
    store,
    events: new RunEventHub(),
    owner: 'worker-a',
    ...(options.checkpointEveryEvents
      ? { checkpointEveryEvents: options.checkpointEveryEvents }
      : {}),
  });
  const route = createAgUiRoute({
    runtime,
    store,
    authorize: options.authorize ?? 'public',
    start: run,
    heartbeatMs: 200,
    ...(options.reauthorizeMs === undefined ? {} : { reauthorizeMs: options.reauthorizeMs }),
  });
  const listener = toNodeListener(async (request) => {
    const path = new URL(request.url).pathname;
    return path === '/ag-ui' ? route(request) : null;
  });
  const server = await listenOnLoopback(listener);
  return {
    url: `${server.origin}/ag-ui`,
    store,
    runtime,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}

/** One SSE message of an AG-UI stream: its `id` and its event. */
export interface Frame {
  id: string | null;
  event: BaseEvent;
}

/** Reads a whole AG-UI SSE response into frames (comments skipped). */
export async function readFrames(response: Response): Promise<Frame[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').some((line) => line.startsWith('data:')))
    .map((block) => {
      const lines = block.split('\n');
      const id =
        lines
          .find((line) => line.startsWith('id:'))
          ?.slice(3)
          .trim() ?? null;
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      return { id, event: JSON.parse(data) as BaseEvent };
    });
}

/**
 * The standard's checks on one stream: every event parses with `@ag-ui/core`'s schema, and the
 * sequence passes `@ag-ui/client`'s `verifyEvents` (it throws on the first violation).
 */
export async function checkStandard(events: readonly BaseEvent[]): Promise<void> {
  for (const event of events) EventSchemas.parse(event);
  await lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
}

export const typesOf = (events: readonly BaseEvent[]) => events.map((event) => event.type);
export { EventType };
