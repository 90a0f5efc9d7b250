import { randomBytes } from 'node:crypto';
import { isTerminalStatus } from '@runlight/protocol';
import {
  type AgentRuntime,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunRecovery,
  type ResolveRun,
  RunEventHub,
  type RuntimeLogEntry,
} from '@runlight/runtime';
import { DEFAULT_SETTINGS, type DemoSettings, type ScenarioId } from '../src/scenario-catalog';
import { adjustableLatency } from './adjustable-latency-driver';
import type { DemoGates } from './demo-gates';
import { faultDriver } from './fault-driver';
import { SCENARIO_RUNS, type ScenarioWorld } from './scenario-runs';

/** A server-side fact about a run that is not part of its record (e.g. a worker's local end). */
export interface DemoNote {
  at: string;
  text: string;
}

export interface DemoRuntimeOptions {
  /** The server log: the only place provider error text goes. Default `console.error`. */
  log?: (entry: RuntimeLogEntry) => void;
  /** Where tests hold scenario runs (`DemoGates`); without it every run keeps its timings. */
  gates?: DemoGates;
}

/**
 * The default log's arguments for `console.error`: one line, and the error (its stack) only
 * when the entry has one — never a trailing `undefined`.
 *
 * @example
 * demoLogLine({ level: 'info', runId: 'r1', message: 'recovery: recovered' });
 * // ['[demo] info run r1: recovery: recovered']
 */
export function demoLogLine(entry: RuntimeLogEntry): unknown[] {
  const line = `[demo] ${entry.level} run ${entry.runId}: ${entry.message}`;
  return entry.error === undefined ? [line] : [line, entry.error];
}

/**
 * The playground's default server log (`pnpm demo`): `console.error` with `demoLogLine`.
 *
 * @example
 * startDemoServer({ log: (entry) => (entry.level === 'info' ? undefined : demoLog(entry)) });
 */
export function demoLog(entry: RuntimeLogEntry): void {
  console.error(...demoLogLine(entry));
}

const SHORT_LEASE_MS = 1500;
/** The crashing worker's lease: how long the page waits before it says the worker is gone. */
const CRASHING_LEASE_MS = 2500;
/** How often worker-b's recovery loop looks for expired leases. */
const RECOVERY_INTERVAL_MS = 250;
/** Checkpoint every 16 ordinary chunks: frequent enough to see in the event log. */
const CHECKPOINT_EVERY_EVENTS = 16;

/**
 * The playground's server world: one in-memory store (with adjustable latency and fault
 * injection), one event hub shared by every runtime instance, worker-a (the default runtime
 * and a short-lease twin) and worker-b, and the scenario runs started on them.
 *
 * @example
 * const demo = createDemoRuntime();
 * const runId = demo.startScenario('quick-answer');
 */
export function createDemoRuntime(options: DemoRuntimeOptions = {}) {
  const log = options.log ?? demoLog;
  const gates = options.gates;
  const memory = createMemoryDriver();
  const latency = adjustableLatency(memory);
  const faults = faultDriver(latency);
  const hub = new RunEventHub({
    onListenerError: (error) =>
      log({ level: 'error', message: 'listener failed', runId: '-', error }),
  });

  /** What the HTTP handlers read: the shared store, never cut off by a scenario's faults. */
  const store = createAgentRuntimeStore(latency);
  const workerStore = createAgentRuntimeStore(faults);
  const common = { events: hub, onLog: log, checkpointEveryEvents: CHECKPOINT_EVERY_EVENTS };
  const worker = createAgentRuntime({ ...common, store: workerStore, owner: 'worker-a' });
  const shortLeaseWorker = createAgentRuntime({
    ...common,
    store: workerStore,
    // Its own name: two runtimes must never share one (a shared name re-acquires as itself).
    owner: 'worker-a-short-lease',
    leaseMs: SHORT_LEASE_MS,
  });
  const otherWorker = createAgentRuntime({ ...common, store, owner: 'worker-b' });
  const crashingWorker = createAgentRuntime({
    ...common,
    store: workerStore,
    owner: 'worker-a',
    leaseMs: CRASHING_LEASE_MS,
  });
  /** How worker-b continues each run a scenario left to recovery. */
  const resolvers = new Map<string, ResolveRun>();
  const recovery = createRunRecovery({
    // Only the runs a scenario handed to recovery: the lease-stolen scenario takes over itself.
    store: {
      // A run a test holds at `recovery` stays stalled until the test releases it.
      findExpiredRuns: async (query) =>
        (await store.findExpiredRuns(query)).filter(
          (run) => resolvers.has(run.runId) && !gates?.holds(run.runId, 'recovery'),
        ),
    },
    runtime: otherWorker,
    intervalMs: RECOVERY_INTERVAL_MS,
    resolveRun: (run, context) => resolvers.get(run.id)?.(run, context),
    onLog: log,
  });
  recovery.start();

  let settings: DemoSettings = { ...DEFAULT_SETTINGS };
  const executors = new Map<string, AgentRuntime>();
  const scenarios = new Map<string, ScenarioId>();
  const notes = new Map<string, DemoNote[]>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const world: ScenarioWorld = {
    worker,
    shortLeaseWorker,
    shortLeaseMs: SHORT_LEASE_MS,
    otherWorker,
    assign: (runId, runtime) => executors.set(runId, runtime),
    onFirstOutput(runId, listener) {
      const unsubscribe = hub.subscribe(runId, (event) => {
        if (event.type === 'run-operation' && event.operation.phase === 'first-output') {
          unsubscribe();
          listener();
        } else if (event.type === 'run-status' && isTerminalStatus(event.status)) {
          unsubscribe();
        }
      });
    },
    loseFirstOutputWrite(runId) {
      faults.loseCompareAndSet(runId, (events) =>
        events.some(
          (event) => event.type === 'run-operation' && event.operation.phase === 'first-output',
        ),
      );
    },
    partitionWorker: (runId, ms) => faults.partition(runId, ms),
    crashingWorker,
    crashingLeaseMs: CRASHING_LEASE_MS,
    crashWorkerAfter: (runId, when) => faults.crashAfter(runId, when),
    recoverWith(runId, resolve) {
      resolvers.set(runId, async (run, context) => {
        const execution = await resolve(run, context);
        if (execution) executors.set(runId, otherWorker);
        return execution;
      });
    },
    note(runId, text) {
      const list = notes.get(runId) ?? [];
      list.push({ at: new Date().toISOString(), text });
      notes.set(runId, list);
    },
    gate: (runId, point, signal) => gates?.wait(runId, point, signal),
    holds: (runId, point) => gates?.holds(runId, point) ?? false,
    later(ms, callback) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, ms);
      timers.add(timer);
    },
  };

  return {
    store,
    hub,
    settings: () => settings,
    updateSettings(patch: Partial<DemoSettings>): DemoSettings {
      settings = { ...settings, ...patch };
      latency.setLatency(settings.latencyMs);
      return settings;
    },
    /**
     * Starts a scenario on a new run and resolves its id once the run exists, so the page's
     * first snapshot request never races the creation (the store may answer on later ticks).
     * The runtime then finds the run created and acquires it.
     */
    async startScenario(scenario: ScenarioId): Promise<string> {
      // 128 random bits: a run id is a capability here (no accounts), so it must not be guessable.
      const runId = `${scenario}-${randomBytes(16).toString('base64url')}`;
      await store.createRun({ runId });
      scenarios.set(runId, scenario);
      gates?.claim(scenario, runId);
      SCENARIO_RUNS[scenario](runId, settings, world);
      return runId;
    },
    scenarioOf: (runId: string) => scenarios.get(runId),
    notesOf: (runId: string): readonly DemoNote[] => notes.get(runId) ?? [],
    /** The runtime executing (or last executing) the run, for cancel and approvals. */
    executorOf: (runId: string) => executors.get(runId),
    /** Stops every scheduled scenario step (the server is closing). */
    close() {
      void recovery.stop();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const [runId, runtime] of executors) runtime.cancelRun(runId);
    },
  };
}

export type DemoRuntime = ReturnType<typeof createDemoRuntime>;
