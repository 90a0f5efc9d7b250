import type { IncomingMessage } from 'node:http';
import { expect } from 'vitest';
import {
  type AgentRuntime,
  type AgentRuntimeStore,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  type MultiplexHandlersOptions,
  RunEventHub,
  type RunHandlersOptions,
  toNodeListener,
} from '../index';
import { listenOnLoopback } from './kit-fixtures';

/** The real runtime and `createRunHandlers` behind a real router on loopback. */
export interface RunServer {
  store: AgentRuntimeStore;
  hub: RunEventHub;
  runtime: AgentRuntime;
  /** `http://127.0.0.1:<port>/api` — the client's `baseUrl`. */
  baseUrl: string;
  /** Every request the server received, in order (`METHOD /path?query`). */
  requests: string[];
  close(): Promise<void>;
}

export interface RunServerOptions {
  /** Extra handler options (`heartbeatMs`, `exposeInternals`, …). */
  handlers?: Partial<Omit<RunHandlersOptions, 'store' | 'runtime'>>;
  /** A store to serve instead of a fresh in-memory one. */
  store?: AgentRuntimeStore;
  /** Also serve the multiplexed stream and the batched snapshots, with these extra options. */
  multiplex?: Partial<Omit<MultiplexHandlersOptions, 'store' | 'runtime'>>;
  /** What the HTTP handlers read through (e.g. a store with one broken run); default the store. */
  reads?: (store: AgentRuntimeStore) => RunHandlersOptions['store'];
}

/**
 * Serves a fresh in-memory runtime through the real `createRunHandlers` and `createRunRouter`
 * (`basePath: '/api'`) on 127.0.0.1 — what a client connection test talks to.
 *
 * @example
 * const server = await serveRunHandlers();
 * afterEach(() => server.close());
 */
export async function serveRunHandlers(options: RunServerOptions = {}): Promise<RunServer> {
  const store = options.store ?? createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, owner: 'worker-a' });
  const reads = options.reads?.(store) ?? store;
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({ heartbeatMs: 200, ...options.handlers, store: reads, runtime }),
      ...(options.multiplex
        ? {
            multiplex: createMultiplexHandlers({
              heartbeatMs: 200,
              ...options.multiplex,
              store: reads,
              runtime,
            }),
          }
        : {}),
      authorize: 'public',
      basePath: '/api',
    }),
  );
  const requests: string[] = [];
  const server = await listenOnLoopback((request: IncomingMessage, response) => {
    requests.push(`${request.method} ${request.url}`);
    listener(request, response);
  });
  return { store, hub, runtime, baseUrl: `${server.origin}/api`, requests, close: server.close };
}

/**
 * What a client holds of a stored run served in the public form (issue 22 item 10): no
 * `fencingToken`, the owner an opaque holder tag — for `expect(state.run).toEqual(…)`.
 */
export function publicRunOf(run: { owner: string | null; fencingToken: number }): object {
  const { fencingToken: _token, ...rest } = run;
  return { ...rest, owner: run.owner === null ? null : expect.stringMatching(/^holder-/) };
}
