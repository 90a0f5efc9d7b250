/**
 * One server process of the fan-out benchmark (forked by `fanout.ts`; argv[2] is a JSON
 * `ServerConfig`). Roles:
 * - `bare`: a bare `node:http` SSE server; synthetic runs; each event's JSON and SSE text made
 *   once and written to every watcher with `res.write` — the baseline.
 * - `hub`: the same synthetic runs published into a `RunEventHub`, served by Runlight's
 *   `createRunHandlers` + `toNodeListener` (memory store): Runlight's sending path alone.
 * - `runtime`: the real thing in one process — `createAgentRuntime` executing `scriptedModel`
 *   runs, memory store, the same handlers.
 * - `runner` / `gateway`: the scale-out shape on PostgreSQL — a runner executes the runs and
 *   serves nothing; gateways serve snapshots and SSE, following runs through the event bus.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeHeapSnapshot } from 'node:v8';
import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import { RunEventHub } from '../../src/events/event-hub';
import type { RunEventBus } from '../../src/events/run-event-bus';
import { createRunHandlers } from '../../src/http/create-run-handlers';
import { createRunRouter } from '../../src/http/routes/create-run-router';
import { toNodeListener } from '../../src/http/routes/to-node-listener';
import { formatSseMessage } from '../../src/http/streams/format-sse-message';
import { createAgentRuntime } from '../../src/runner/agent-runtime';
import {
  type AgentRuntimeStore,
  createAgentRuntimeStore,
} from '../../src/store/agent-runtime-store';
import { createMemoryDriver } from '../../src/store/driver/memory-driver';
import { statusEvent } from '../../src/store/log/reducer';
import { scriptedModel } from '../../src/testing/scripted-model';
import { ServerRecorder } from './server-recorder';
import {
  type ParentMessage,
  runIdOf,
  runText,
  type ServerMessage,
  type Workload,
} from './slot-schedule';

export interface ServerConfig {
  role: 'bare' | 'hub' | 'runtime' | 'runner' | 'gateway';
  workload: Workload;
  /** `listen` backlog. */
  backlog: number;
  /** Runs are created and never started: watchers of a quiet run (the idle-watcher memory). */
  quiet?: boolean;
  /** Wire coalescing of the handlers (`coalesceDeltasMs`); the watchers ask for it. */
  coalesceDeltasMs?: number;
  /** PostgreSQL (runner / gateway): pool config and schema. */
  postgres?: { connectionString: string; schema: string };
}

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
const recorder = new ServerRecorder(config.role);
const send = (message: ServerMessage) => process.send?.(message);
const OWNER = { owner: 'fanout-bench', leaseMs: 60_000 };
let stopping = false;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen({ port: 0, host: '127.0.0.1', backlog: config.backlog }, () =>
      resolve((server.address() as AddressInfo).port),
    );
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `slot`'s runs one after another, staggered so slots do not stream in lockstep. */
async function slotLoop(slot: number, execute: (runId: string, next: string) => Promise<void>) {
  const { workload } = config;
  await sleep(
    (slot * (workload.firstTokenMs + workload.tokens * workload.tokenMs)) / workload.slots,
  );
  for (let k = 0; !stopping; k++) {
    send({ type: 'slot', slot, k });
    await execute(runIdOf(slot, k), runIdOf(slot, k + 1));
  }
}

/** The delta a synthetic run publishes: the same shape and JSON the runtime publishes. */
function textDelta(runId: string, seq: number, delta: string): RunDeltaEvent {
  return {
    type: 'run-delta',
    runId,
    baseRevision: 0,
    seq,
    chunk: { type: 'text-delta', id: 'text-0', delta },
  };
}

/** Plays one synthetic run on timers, handing every event to `emit`. */
async function syntheticRun(runId: string, emit: (event: RunDeltaEvent) => void): Promise<void> {
  const { workload } = config;
  const text = runText(workload);
  await sleep(workload.firstTokenMs);
  for (let i = 0; i < text.length; i++) {
    if (i > 0) await sleep(workload.tokenMs);
    const event = textDelta(runId, i + 1, text[i]!);
    recorder.delta(runId, 0, event.seq);
    emit(event);
  }
}

// ── bare ─────────────────────────────────────────────────────────────────────────────────

async function startBare(): Promise<number> {
  const watchers = new Map<string, Set<ServerResponse>>();
  const ended = new Set<string>();
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
    if (ended.has(runId)) {
      res.end();
      return;
    }
    let set = watchers.get(runId);
    if (!set) {
      set = new Set();
      watchers.set(runId, set);
    }
    set.add(res);
    res.once('close', () => set.delete(res));
  });
  for (let slot = 0; slot < (config.quiet ? 0 : config.workload.slots); slot++) {
    void slotLoop(slot, async (runId) => {
      await syntheticRun(runId, (event) => {
        const set = watchers.get(runId);
        if (!set || set.size === 0) return;
        const text = formatSseMessage(event.type, `2:0:${event.seq}`, JSON.stringify(event));
        for (const res of set) res.write(text);
      });
      ended.add(runId);
      for (const res of watchers.get(runId) ?? []) res.end();
      watchers.delete(runId);
    });
  }
  return listen(server);
}

// ── hub: Runlight's sending path on synthetic runs ───────────────────────────────────────

function serve(
  store: AgentRuntimeStore,
  source: RunEventBus | ReturnType<typeof createAgentRuntime>,
) {
  const handlers = createRunHandlers({
    store,
    runtime: source,
    coalesceDeltasMs: config.coalesceDeltasMs ?? 0,
  });
  return listen(createServer(toNodeListener(createRunRouter({ handlers, authorize: 'public' }))));
}

async function startHub(): Promise<number> {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(createMemoryDriver());
  const publish = (event: RunEvent) => hub.publish(event);
  for (let slot = 0; slot < config.workload.slots; slot++) {
    await store.createRun({ runId: runIdOf(slot, 0) });
    if (config.quiet) continue;
    void slotLoop(slot, async (runId, next) => {
      publish(statusEvent(await store.createRun({ runId: next }), 'created'));
      const acquired = await store.acquireRun(runId, OWNER);
      publish(statusEvent(acquired, 'acquired'));
      await syntheticRun(runId, publish);
      const guard = {
        owner: OWNER.owner,
        fencingToken: acquired.fencingToken,
        expectedRevision: acquired.revision,
      };
      publish(
        statusEvent(await store.commitTerminal(runId, guard, { status: 'completed' }), 'completed'),
      );
      hub.endRun(runId);
    });
  }
  return serve(store, hub);
}

// ── runtime: scripted runs executed by the runtime ───────────────────────────────────────

function runSlots(store: AgentRuntimeStore, runtime: ReturnType<typeof createAgentRuntime>) {
  const { workload } = config;
  const text = runText(workload);
  for (let slot = 0; slot < workload.slots; slot++) {
    void slotLoop(slot, async (runId, next) => {
      await store.createRun({ runId: next });
      const unsubscribe = runtime.subscribe(runId, (event) => {
        if (event.type === 'run-delta') recorder.delta(runId, event.baseRevision, event.seq);
      });
      const model = scriptedModel([
        { firstTokenMs: workload.firstTokenMs, tokenMs: workload.tokenMs, text },
      ]);
      await runtime.startRun({ runId, model, messages: [{ role: 'user', content: 'Go' }] }).done;
      unsubscribe();
    });
  }
}

async function startRuntime(): Promise<number> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, owner: 'fanout', onLog: () => {} });
  for (let slot = 0; slot < config.workload.slots; slot++) {
    await store.createRun({ runId: runIdOf(slot, 0) });
  }
  if (!config.quiet) runSlots(store, runtime);
  return serve(store, runtime);
}

// ── runner / gateway on PostgreSQL ───────────────────────────────────────────────────────

/** The scale-out shape's shared store and bus (`@runlight/store-postgres`, by path: it depends on
 * this package). */
async function postgres() {
  const { connectPostgresDeployment } = await import(
    '../../../store-postgres/src/scale-out/postgres-deployment'
  );
  const { connectionString, schema } = config.postgres!;
  return connectPostgresDeployment({ connectionString, schema, migrate: false });
}

async function startRunner(): Promise<null> {
  const { store, bus } = await postgres();
  const runtime = createAgentRuntime({ store, events: bus, owner: 'runner', onLog: () => {} });
  for (let slot = 0; slot < config.workload.slots; slot++) {
    await store.createRun({ runId: runIdOf(slot, 0) }).catch(() => {});
  }
  if (!config.quiet) runSlots(store, runtime);
  return null;
}

async function startGateway(): Promise<number> {
  const { startGateway: start } = await import('../../../store-postgres/src/scale-out/gateway');
  const { store, bus } = await postgres();
  const gateway = await start({ store, bus, backlog: config.backlog, authorize: 'public' });
  return Number(new URL(gateway.origin).port);
}

const starters = {
  bare: startBare,
  hub: startHub,
  runtime: startRuntime,
  runner: startRunner,
  gateway: startGateway,
} as const;

process.on('message', (message: ParentMessage) => {
  if (message.type === 'window-start') recorder.startWindow();
  else if (message.type === 'window-end') send({ type: 'stats', stats: recorder.endWindow() });
  else if (message.type === 'probe') {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    // FANOUT_HEAP_SNAPSHOT=<dir>: a heap snapshot at every probe, to see what a watcher holds.
    if (process.env.FANOUT_HEAP_SNAPSHOT) {
      writeHeapSnapshot(
        `${process.env.FANOUT_HEAP_SNAPSHOT}/${config.role}-${Date.now()}.heapsnapshot`,
      );
    }
    const memory = process.memoryUsage();
    send({ type: 'probe', rss: memory.rss, heapUsed: memory.heapUsed });
  } else if (message.type === 'stop') {
    stopping = true;
    recorder.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));

send({ type: 'ready', port: await starters[config.role]() });
