/**
 * One process of the relay benchmark (forked by `relay.ts`; argv[2] is a JSON `RelayChildConfig`):
 * - `runner`: publishes live deltas on the bus at the rate it is told (round robin over runs);
 * - `gateway`: Runlight's gateway — the bus, `createRunHandlers` + `createRunRouter` +
 *   `toNodeListener` serving each run's SSE stream (`GET /runs/:id/events`);
 * - `bare`: a bare relay of the same bus — it reads the same Redis streams (one `XREAD`, the
 *   bus's batching: `COUNT 1000`, 2 ms between replies) or the same LISTEN channel, and writes
 *   the same SSE frames to `node:http` responses (one write per client and turn), with no
 *   validation, no ordering, no buffer.
 *
 * With 0 clients the gateway subscribes to each run on its bus, the bare relay parses what it
 * reads; both time each delta from its publication (the runner's clock is in the delta's text).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunDeltaEvent } from '@runlight/protocol';
import {
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import { createPostgresEventBus } from '@runlight/store-postgres';
import pg from 'pg';
import { createRedisEventBus } from '../../src/index';
import type { BusKind } from '../bus/open-bus';
import { BareRelay } from './bare-relay';

export interface RelayChildConfig {
  role: 'runner' | 'gateway' | 'bare';
  bus: BusKind;
  /**
   * Gateway: every this many ms, drop the live-delta buffers of the runs it follows (`endRun`),
   * as the runtime's assistant writes do (every 32 chunks by default) — which this bench's
   * runner never makes. 0: never (the buffers grow all turn).
   */
  trimMs?: number;
}

export type ToRelayChild =
  | { type: 'publish'; runIds: string[]; rate: number; durationMs: number }
  | { type: 'follow'; runIds: string[]; clients: number }
  | { type: 'unfollow' }
  /** These runs ended (as a terminal status would tell): the gateway drops their buffers. */
  | { type: 'ended'; runIds: string[] }
  | { type: 'measure' }
  | { type: 'count' }
  | { type: 'report' }
  | { type: 'close' };

export interface Published {
  type: 'published';
  published: number;
  elapsedMs: number;
}
export interface Following {
  type: 'following';
  port: number;
}
export interface Counted {
  type: 'counted';
  received: number;
}
export interface Reported {
  type: 'reported';
  received: number;
  cpuMs: number;
  /** Publish → this process (ms), with 0 clients only. */
  latencies: number[];
}

const config = JSON.parse(process.argv[2]!) as RelayChildConfig;
const send = (message: object) => process.send!(message);
const now = () => performance.timeOrigin + performance.now();
const errors: string[] = [];
const onError = (error: unknown) => {
  if (errors.length < 5) errors.push(String(error));
};

/** The publication time a delta carries: its text is `"<ms since epoch> "`. */
export const sentAt = (delta: string) => Number.parseFloat(delta);

let received = 0;
let latencies: number[] = [];
let cpuSince = process.cpuUsage();
const count = (delta: string) => {
  received++;
  latencies.push(now() - sentAt(delta));
};

async function openRuntimeBus(store: ReturnType<typeof createAgentRuntimeStore>) {
  const bus = config.bus;
  if (bus.kind === 'redis') {
    return createRedisEventBus({ url: bus.url, keyPrefix: bus.keyPrefix, store, onError });
  }
  const pool = new pg.Pool({ connectionString: bus.connectionString, max: 4 });
  pool.on('error', onError);
  const events = await createPostgresEventBus({
    pool,
    schema: bus.schema,
    channel: `${bus.schema}_events`,
    onError,
  });
  const closeBus = events.close.bind(events);
  return Object.assign(events, {
    async close() {
      await closeBus();
      await pool.end();
    },
  });
}

interface Side {
  port: number;
  follow(runIds: string[], clients: number): Promise<void>;
  unfollow(): void;
  ended?(runIds: string[]): void;
  publish?(runIds: string[], rate: number, durationMs: number): Promise<Published>;
  close(): Promise<void>;
}

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve) =>
    server.listen({ port: 0, host: '127.0.0.1' }, () =>
      resolve((server.address() as AddressInfo).port),
    ),
  );
}

async function runnerSide(): Promise<Side> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const bus = await openRuntimeBus(store);
  const seqs = new Map<string, number>();
  return {
    port: 0,
    follow: async () => {},
    unfollow: () => {},
    async publish(runIds, rate, durationMs) {
      const started = performance.now();
      let published = 0;
      while (performance.now() - started < durationMs) {
        const due = Math.floor(((performance.now() - started) / 1_000) * rate);
        while (published < due) {
          const runId = runIds[published++ % runIds.length]!;
          const seq = (seqs.get(runId) ?? 0) + 1;
          seqs.set(runId, seq);
          const delta: RunDeltaEvent = {
            type: 'run-delta',
            runId,
            baseRevision: 0,
            seq,
            chunk: { type: 'text-delta', id: 'text-0', delta: `${now().toFixed(3)} ` },
          };
          bus.publish(delta);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const elapsedMs = performance.now() - started;
      await bus.flushed?.();
      for (const runId of runIds) bus.endRun(runId); // its buffers go (the runs are done)
      return { type: 'published', published, elapsedMs };
    },
    close: () => bus.close(),
  };
}

async function gatewaySide(): Promise<Side> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const bus = await openRuntimeBus(store);
  const handlers = createRunHandlers({ store, runtime: bus });
  const server = createServer(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
  const port = await listen(server);
  let unsubscribes: (() => void)[] = [];
  let following: string[] = [];
  if (config.trimMs) {
    setInterval(() => {
      for (const runId of following) bus.endRun(runId);
    }, config.trimMs).unref();
  }
  return {
    port,
    async follow(runIds, clients) {
      following = runIds;
      for (const runId of runIds) await store.createRun({ runId });
      if (clients > 0) return; // the SSE clients subscribe through the handlers
      unsubscribes = runIds.map((runId) =>
        bus.subscribe(runId, (event) => {
          if (event.type === 'run-delta' && event.chunk.type === 'text-delta') {
            count(event.chunk.delta);
          }
        }),
      );
    },
    unfollow() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      unsubscribes = [];
      following = [];
    },
    ended(runIds) {
      for (const runId of runIds) bus.endRun(runId);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await bus.close();
    },
  };
}

async function bareSide(): Promise<Side> {
  const relay = new BareRelay(config.bus, (delta) => count(delta), onError);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const runId = /^\/runs\/([^/]+)\/events/.exec(req.url ?? '')?.[1];
    if (!runId) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store, no-transform',
    });
    res.flushHeaders();
    relay.addClient(decodeURIComponent(runId), res);
  });
  const port = await listen(server);
  await relay.start();
  return {
    port,
    follow: async (runIds, clients) => relay.follow(runIds, clients === 0),
    unfollow: () => relay.unfollow(),
    async close() {
      server.closeAllConnections();
      server.close();
      await relay.close();
    },
  };
}

const side = await { runner: runnerSide, gateway: gatewaySide, bare: bareSide }[config.role]();

process.on('message', async (message: ToRelayChild) => {
  switch (message.type) {
    case 'publish':
      send(await side.publish!(message.runIds, message.rate, message.durationMs));
      break;
    case 'follow':
      await side.follow(message.runIds, message.clients);
      send({ type: 'following', port: side.port } satisfies Following);
      break;
    case 'unfollow':
      side.unfollow();
      send({ type: 'unfollowed' });
      break;
    case 'ended':
      side.ended?.(message.runIds);
      break;
    case 'measure':
      received = 0;
      latencies = [];
      cpuSince = process.cpuUsage();
      send({ type: 'measuring' });
      break;
    case 'count':
      send({ type: 'counted', received } satisfies Counted);
      break;
    case 'report': {
      const used = process.cpuUsage(cpuSince);
      const cpuMs = (used.user + used.system) / 1_000;
      send({ type: 'reported', received, cpuMs, latencies } satisfies Reported);
      latencies = [];
      break;
    }
    case 'close':
      await side.close();
      if (errors.length > 0) process.stderr.write(`${config.role} errors: ${errors.join('; ')}\n`);
      process.exit(0);
  }
});
send({ type: 'ready' });
