import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PGliteInterface } from '@electric-sql/pglite';
import type { RunEvent } from '@runlight/protocol';
import {
  type AgentRuntimeOptions,
  createAgentRuntime,
  createAgentRuntimeStore,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import type { Pool } from 'pg';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus } from '../postgres-event-bus';
import type { PostgresClient } from '../sql-client';

/**
 * One Runlight server instance over a shared database, as a deployment runs it: its own store,
 * LISTEN/NOTIFY event bus, runtime and HTTP server on 127.0.0.1 (port 0).
 */
export async function startInstance(
  client: PostgresClient,
  schema: string,
  options: Partial<AgentRuntimeOptions> & { owner: string },
) {
  const store = createAgentRuntimeStore(createPostgresDriver({ client, schema }));
  const busErrors: unknown[] = [];
  const pglite = 'exec' in client && 'closed' in client;
  const bus = await createPostgresEventBus({
    ...(pglite ? { pglite: client as PGliteInterface } : { pool: client as Pool }),
    schema,
    channel: `${schema}_events`,
    onError: (error) => busErrors.push(error),
  });
  const runtime = createAgentRuntime({ store, events: bus, ...options });
  // These tests compare what a client receives with what is stored: the stored form.
  const handlers = createRunHandlers({ store, runtime, exposeInternals: true });
  const route = createRunRouter({ handlers, authorize: 'public' });
  const server = createServer(toNodeListener(route));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    store,
    bus,
    busErrors,
    runtime,
    origin,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bus.close();
    },
  };
}

/** Reads a run's SSE stream until the server ends it; returns every event with its id. */
export async function readEventStream(
  url: string,
): Promise<{ id: string | null; event: RunEvent }[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  const messages: { id: string | null; event: RunEvent }[] = [];
  for (const block of text.split('\n\n')) {
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) messages.push({ id, event: JSON.parse(data.join('\n')) as RunEvent });
  }
  return messages;
}
