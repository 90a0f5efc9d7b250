import { randomBytes } from 'node:crypto';
import type { DurableRunEvent, RunEvent } from '@runlight/protocol';
import {
  type AgentRuntimeStore,
  createAgentRuntime,
  createRunHandlers,
  createRunRouter,
  type RunEventSourceHealth,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { listenOnLoopback, modelRequest, startTcpProxy, type TcpProxy } from '@runlight/test-utils';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ListenTimeoutError } from '../listen-timeout-error';
import {
  connectPostgresDeployment,
  type PostgresDeployment,
} from '../scale-out/postgres-deployment';
import { LIVENESS_PROBE_SQL, toSqlClient } from '../sql-client';
import { type SseWatcher, watchEvents } from './sse-watcher';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

/** The figure: a LISTEN backend frozen this long must be noticed well within it. */
const FREEZE_MS = 10_000;
/** Short, so the tests are; a timeout generous enough for a busy machine's healthy probe. */
const LIVENESS = { livenessIntervalMs: 500, livenessTimeoutMs: 2_000 };
const HEARTBEAT_MS = 100;

const isTerminal = (event: RunEvent) =>
  event.type === 'run-status' &&
  (event.status === 'completed' || event.status === 'failed' || event.status === 'cancelled');
const durable = (watcher: SseWatcher) =>
  watcher.messages
    .map((message) => message.event)
    .filter((event): event is DurableRunEvent => event.type !== 'run-delta');

/** Resolves with `work`, or with `'timed out'` after `ms`. */
const within = <T>(work: Promise<T>, ms: number) =>
  Promise.race([work, new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms))]);

describe.runIf(serverUnavailable === null)(`a gateway's LISTEN connection (${serverLabel})`, () => {
  let database: TestDatabase;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    database = await openServer();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await database?.close();
  });

  /**
   * A runner (direct pool) and a gateway whose whole pool goes through a TCP proxy the test
   * freezes; the gateway's SSE handlers ping every `HEARTBEAT_MS`.
   */
  async function setUp() {
    const schema = await database.freshSchema();
    const config = serverPoolConfig();
    const proxy: TcpProxy = await startTcpProxy({ host: config.host!, port: config.port! });
    cleanups.push(() => proxy.close());
    const applicationName = `rl-gw-${randomBytes(4).toString('hex')}`;
    // A pool of the user's, with no 'error' listener: the library's own LISTEN client must
    // not take the process down through it.
    const gatewayPool = new pg.Pool({
      ...config,
      host: proxy.host,
      port: proxy.port,
      max: 4,
      application_name: applicationName,
    });
    cleanups.push(() => gatewayPool.end());
    const errors: unknown[] = [];
    const gateway = await connectPostgresDeployment({
      pool: gatewayPool,
      schema,
      migrate: false,
      ...LIVENESS,
      onError: (error) => errors.push(error),
    });
    cleanups.push(() => gateway.close());
    const health: { health: RunEventSourceHealth; at: number }[] = [];
    gateway.bus.onHealthChange((next) => health.push({ health: next, at: performance.now() }));
    const handlers = createRunHandlers({
      // Compared with what is stored: the stored form.
      exposeInternals: true,
      store: gateway.store,
      runtime: gateway.bus,
      heartbeatMs: HEARTBEAT_MS,
    });
    const server = await listenOnLoopback(
      toNodeListener(createRunRouter({ handlers, authorize: 'public' })),
    );
    cleanups.push(() => server.close());
    const runnerPool = new pg.Pool({ ...config, max: 4 });
    cleanups.push(() => runnerPool.end());
    const runner = await connectPostgresDeployment({ pool: runnerPool, schema, migrate: false });
    cleanups.push(() => runner.close());
    const watch = async (runId: string, count: number) => {
      const watchers: SseWatcher[] = [];
      for (let i = 0; i < count; i++) {
        const watcher = await watchEvents(`${server.origin}/runs/${runId}/events`);
        cleanups.push(async () => watcher.stop());
        watchers.push(watcher);
      }
      await vi.waitFor(() => expect(gateway.bus.listenerCount(runId)).toBe(count));
      return watchers;
    };
    /** The gateway's LISTEN backend, as the proxy sees it: its `client_port`. */
    const listenPort = async () => {
      const rows = await toSqlClient(database.client).query<{ client_port: number }>({
        text: `SELECT client_port FROM pg_stat_activity
               WHERE application_name = $1 AND (query LIKE 'LISTEN %' OR query = $2)`,
        values: [applicationName, LIVENESS_PROBE_SQL],
      });
      expect(rows).toHaveLength(1);
      return rows[0]!.client_port;
    };
    // Runs first: nothing of the gateway may stay frozen while it closes.
    cleanups.push(async () => proxy.thaw());
    return { proxy, gateway, runner, errors, health, watch, listenPort };
  }

  /** A run driven on the runner's store and bus by hand: durable events only, no delta. */
  async function drivenRun(runner: PostgresDeployment, store: AgentRuntimeStore, runId: string) {
    await store.createRun({ runId });
    let run = await store.acquireRun(runId, { owner: 'runner', leaseMs: 60_000 });
    const publishLast = async () => {
      const [event] = await store.readEvents(runId, { afterRevision: run.revision - 1 });
      runner.bus.publish(event!);
    };
    const guard = () => ({
      owner: 'runner',
      fencingToken: run.fencingToken,
      expectedRevision: run.revision,
    });
    return {
      async operation(step: number, phase: 'started' | 'completed') {
        run = await store.recordRunOperation(runId, guard(), modelRequest(step, phase));
        await publishLast();
      },
      async complete() {
        run = await store.commitTerminal(runId, guard(), { status: 'completed' });
        await publishLast();
      },
    };
  }

  it('notices a frozen LISTEN connection within the liveness timeout, listens again and catches every followed run up while it stays frozen', async () => {
    const { proxy, gateway, runner, errors, health, watch, listenPort } = await setUp();
    const store = runner.store;
    // `heard`: the gateway's bus delivered one of its events before the freeze; `quiet`: none.
    const heard = await drivenRun(runner, store, 'heard');
    const quiet = await drivenRun(runner, store, 'quiet');
    const [heardWatchers, quietWatchers] = [await watch('heard', 2), await watch('quiet', 2)];
    await heard.operation(0, 'started');
    await vi.waitFor(() => {
      for (const watcher of heardWatchers) expect(durable(watcher)).toHaveLength(3);
    });

    const port = await listenPort();
    proxy.freeze((connection) => connection.upstreamPort === port); // a half-open socket
    const frozenAt = performance.now();
    // Committed and announced while the gateway hears nothing.
    await heard.operation(0, 'completed');
    await heard.complete();
    await quiet.operation(0, 'started');
    await quiet.operation(0, 'completed');
    await quiet.complete();

    const watchers = [...heardWatchers, ...quietWatchers];
    const ended = await within(Promise.all(watchers.map((watcher) => watcher.ended)), FREEZE_MS);
    expect(ended, 'the watchers saw the runs end while the LISTEN backend was frozen').not.toBe(
      'timed out',
    );
    expect(performance.now() - frozenAt).toBeLessThan(FREEZE_MS);
    proxy.thaw();

    for (const [runId, group] of [
      ['heard', heardWatchers],
      ['quiet', quietWatchers],
    ] as const) {
      const log = await store.readEvents(runId);
      for (const watcher of group) {
        // Every durable event once, in order, as stored — the end included.
        expect(durable(watcher)).toEqual(log);
        expect(isTerminal(watcher.messages.at(-1)!.event)).toBe(true);
      }
    }
    expect(errors.some((error) => ListenTimeoutError.isInstance(error))).toBe(true);
    expect(health.map((change) => change.health)).toContain('deaf');
    expect(health.at(-1)?.health).toBe('live');
    expect(gateway.bus.health()).toBe('live');
  }, 30_000);

  it('sends no ping while deaf (a hung proxy: every connection through it hangs), then hears again and its watchers see the run end', async () => {
    const { proxy, gateway, runner, health, watch } = await setUp();
    const runId = 'hung';
    await runner.store.createRun({ runId });
    await runner.store.createRun({ runId: 'idle' }); // its stream stays open: only pings
    const watchers = await watch(runId, 3);
    const [idle] = await watch('idle', 1);
    const runtime = createAgentRuntime({
      store: runner.store,
      events: runner.bus,
      owner: 'runner',
    });
    const text = Array.from({ length: 40 }, (_, i) => `w${i} `);
    const done = runtime.startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 10, tokenMs: 25, text }]),
      messages: [{ role: 'user', content: 'Go' }],
    }).done;
    await vi.waitFor(() => {
      for (const watcher of watchers) expect(watcher.messages.length).toBeGreaterThan(3);
    });

    // Every connection of the gateway's pool, and the new ones it opens: no LISTEN can work.
    proxy.freeze(undefined, true);
    await vi.waitFor(() => expect(gateway.bus.health()).toBe('deaf'), { timeout: FREEZE_MS });
    const deafAt = health.at(-1)!.at;
    const run = await done;
    expect(run.status).toBe('completed');
    // Deaf for a while (attempts to listen again hang on the proxy): not one ping meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 30 * HEARTBEAT_MS));
    const thawedAt = performance.now();
    expect(gateway.bus.health()).toBe('deaf');
    for (const watcher of [...watchers, idle!]) {
      // A ping written just before the change may still be on its way.
      expect(watcher.pings.filter((at) => at > deafAt + HEARTBEAT_MS)).toEqual([]);
    }
    proxy.thaw();

    await vi.waitFor(() => expect(gateway.bus.health()).toBe('live'), { timeout: FREEZE_MS });
    const liveAt = health.at(-1)!.at;
    const log = await runner.store.readEvents(runId);
    for (const watcher of watchers) {
      await watcher.ended;
      const last: { type: string } = watcher.messages.at(-1)!.event;
      if (last.type === 'reset') continue; // deltas lost while deaf: the client reloads
      expect(durable(watcher)).toEqual(log);
      expect(isTerminal(watcher.messages.at(-1)!.event)).toBe(true);
    }
    // Hearing again, the heartbeat is back.
    await vi.waitFor(() => expect(idle!.pings.filter((at) => at > liveAt)).not.toEqual([]));
    expect(thawedAt).toBeGreaterThan(deafAt);
  }, 30_000);

  it('closes at once while deaf, however long the proxy hangs', async () => {
    const { proxy, gateway } = await setUp();
    proxy.freeze(undefined, true);
    await vi.waitFor(() => expect(gateway.bus.health()).toBe('deaf'), { timeout: FREEZE_MS });
    // Its reconnect loop and timed waits stop; nothing of the bus is left waiting on the proxy.
    expect(await within(gateway.bus.close(), FREEZE_MS)).not.toBe('timed out');
  }, 30_000);
});
