import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import { assistantMessage, modelRequest } from '@runlight/test-utils';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentRuntimeStore, RunEventBus, RunEventSourceHealth } from '../index';

/** A bus as one process of the deployment holds it. */
export type ConformanceBus = RunEventBus & {
  /** Resolves once the transport took everything published so far. */
  flushed?(): Promise<void>;
  close?(): Promise<void>;
};

export interface BusConformanceTarget {
  /** Where the durable events are committed (a bus across processes reads them there). */
  store: AgentRuntimeStore;
  /** The bus of one more process on the same transport (the in-process hub: the same one). */
  openBus(onError: (error: unknown) => void): Promise<ConformanceBus>;
  /** Faults of a bus across processes, on its own connections only (never the shared server). */
  faults?: {
    /** Destroys every connection `bus` holds to the server (it reconnects on its own). */
    kill(bus: ConformanceBus): void;
    /** `true`: the server is down for `bus` (its connections dropped, new ones refused). */
    down(bus: ConformanceBus, down: boolean): void;
  };
  close(): Promise<void>;
}

export interface BusConformanceOptions {
  setup: () => Promise<BusConformanceTarget>;
  /** Buses of different processes: one publishes, another delivers (the hub: false). */
  acrossProcesses: boolean;
}

const label = (event: RunEvent) =>
  event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`;

const delta = (runId: string, baseRevision: number, seq: number): RunDeltaEvent => ({
  type: 'run-delta',
  runId,
  baseRevision,
  seq,
  chunk: { type: 'text-delta', id: 'text-1', delta: `t${seq}` },
});

function follow(bus: RunEventBus, runId: string) {
  const seen: string[] = [];
  const stop = bus.subscribe(runId, (event) => seen.push(label(event)));
  return { seen, stop };
}

let runs = 0;

/** A run on `store`; each step commits one more durable event and returns it. */
async function startRun(store: AgentRuntimeStore) {
  const runId = `bus-conformance-${process.pid}-${++runs}`;
  await store.createRun({ runId });
  let run = await store.acquireRun(runId, { owner: 'a', leaseMs: 60_000 });
  let step = 0;
  let phase: 'started' | 'completed' = 'completed';
  const guard = () => ({
    owner: 'a',
    fencingToken: run.fencingToken,
    expectedRevision: run.revision,
  });
  const committed = async () =>
    (await store.readEvents(runId, { afterRevision: run.revision - 1 }))[0]!;
  return {
    runId,
    /** A model request started, or the one in flight completed: one event. */
    async operation() {
      phase = phase === 'started' ? 'completed' : 'started';
      if (phase === 'started') step++;
      run = await store.recordRunOperation(runId, guard(), modelRequest(step, phase));
      return committed();
    },
    async checkpoint(text: string) {
      run = await store.saveAssistantCheckpoint(runId, guard(), assistantMessage(text));
      return committed();
    },
  };
}

/**
 * The behaviour every `RunEventBus` owes its subscribers, run against the in-process hub and
 * each bus across processes on its real server: each run's events in publish order, each once,
 * durable events missed while deaf read back, a killed connection survived, `close` while the
 * server is down, and control requests announced to the other processes.
 *
 * @example
 * describeBusConformance('in-process hub', { acrossProcesses: false, setup: async () => ({ … }) });
 */
export function describeBusConformance(name: string, options: BusConformanceOptions): void {
  describe(`RunEventBus conformance: ${name}`, () => {
    let target: BusConformanceTarget;
    const open: ConformanceBus[] = [];
    const errors: unknown[] = [];
    beforeAll(async () => {
      target = await options.setup();
      return () => target.close();
    });
    afterEach(async () => {
      for (const bus of open.splice(0)) await bus.close?.();
      expect(errors.splice(0)).toEqual([]);
    });
    const openBus = async (onError = (error: unknown) => errors.push(error)) => {
      const bus = await target.openBus(onError);
      if (!open.includes(bus)) open.push(bus);
      return bus;
    };
    /** A publishing process and a following one (the same for the hub). */
    const pair = async () => [await openBus(), await openBus()] as const;

    it("delivers each run's durable events and deltas in publish order, to every subscriber", async () => {
      const [a, b] = await pair();
      const run = await startRun(target.store);
      const onA = follow(a, run.runId);
      const onB = [follow(b, run.runId), follow(b, run.runId)];
      a.publish(await run.operation()); // r3
      a.publish(delta(run.runId, 0, 1));
      a.publish(delta(run.runId, 0, 2));
      a.publish(await run.checkpoint('t1t2')); // r4
      a.publish(delta(run.runId, 4, 1));
      a.publish(await run.operation()); // r5
      const expected = ['r3', 'd0.1', 'd0.2', 'r4', 'd4.1', 'r5'];
      expect(onA.seen).toEqual(expected); // the publisher's own subscribers: at once
      await vi.waitFor(() => expect(onB.map((on) => on.seen)).toEqual([expected, expected]));
    });

    it('delivers each event once, and nothing after unsubscribe', async () => {
      const [a, b] = await pair();
      const run = await startRun(target.store);
      const other = await startRun(target.store);
      const onB = follow(b, run.runId);
      const onOther = follow(b, other.runId);
      a.publish(await run.operation());
      a.publish(delta(run.runId, 3, 1));
      a.publish(await other.operation());
      await vi.waitFor(() => expect(onOther.seen).toEqual(['r3']));
      await vi.waitFor(() => expect(onB.seen).toEqual(['r3', 'd3.1']));
      onB.stop();
      a.publish(delta(run.runId, 3, 2));
      a.publish(await other.operation());
      await vi.waitFor(() => expect(onOther.seen).toEqual(['r3', 'r4']));
      // The other run's r4 came after d3.2 was published: had it been delivered, it was seen.
      expect(onB.seen).toEqual(['r3', 'd3.1']);
    });

    if (options.acrossProcesses) {
      it('reads a revision whose announcement never arrived from the store, and drops repeats', async () => {
        const [a, b] = await pair();
        const run = await startRun(target.store);
        const onB = follow(b, run.runId);
        const third = await run.operation();
        a.publish(third);
        await vi.waitFor(() => expect(onB.seen).toEqual(['r3']));
        await run.operation(); // r4: committed, never published
        const fifth = await run.operation();
        a.publish(fifth);
        a.publish(third);
        a.publish(fifth);
        a.publish(await run.operation());
        await vi.waitFor(() => expect(onB.seen).toEqual(['r3', 'r4', 'r5', 'r6']));
      });

      it('announces a control request to every other process once, not to its own', async () => {
        const [a, b] = await pair();
        const heard = { a: [] as string[], b: [] as string[] };
        a.onControlRequest?.((runId) => heard.a.push(runId));
        b.onControlRequest?.((runId) => heard.b.push(runId));
        a.notifyControlRequest?.('run-1');
        a.notifyControlRequest?.('run-2');
        await vi.waitFor(() => expect(heard.b).toEqual(['run-1', 'run-2']));
        await a.flushed?.();
        b.notifyControlRequest?.('run-3'); // b's own announcement: after a's, so a's came first
        await vi.waitFor(() => expect(heard.a).toEqual(['run-3']));
        expect(heard.b).toEqual(['run-1', 'run-2']);
      });
    }

    const faults = () => target.faults!;
    const healthOf = (bus: ConformanceBus) => bus.health?.() ?? 'live';
    const healths = (bus: ConformanceBus) => {
      const seen: RunEventSourceHealth[] = [];
      bus.onHealthChange?.((health) => seen.push(health));
      return seen;
    };

    if (options.acrossProcesses) {
      it('is deaf while it cannot hear, then reads the durable events it missed', async () => {
        const [a, b] = await pair();
        const run = await startRun(target.store);
        const onB = follow(b, run.runId);
        const changes = healths(b);
        a.publish(await run.operation());
        await vi.waitFor(() => expect(onB.seen).toEqual(['r3']));
        faults().down(b, true);
        await vi.waitFor(() => expect(healthOf(b)).toBe('deaf'));
        a.publish(await run.operation()); // r4: announced while b hears nothing
        // r5: committed, its announcement lost in the outage (a NOTIFY nobody listened to, a
        // Redis restarted without persistence): only the durable log still has it.
        await run.operation();
        await a.flushed?.();
        faults().down(b, false);
        await vi.waitFor(() => expect(onB.seen).toEqual(['r3', 'r4', 'r5']), { timeout: 20_000 });
        await vi.waitFor(() => expect(healthOf(b)).toBe('live'));
        expect(changes).toEqual(['deaf', 'live']);
        errors.splice(0); // the loss and the failed reconnects, reported
      });

      it('survives a killed connection: what comes after arrives, in order', async () => {
        const [a, b] = await pair();
        const run = await startRun(target.store);
        const onB = follow(b, run.runId);
        a.publish(await run.operation());
        await vi.waitFor(() => expect(onB.seen).toEqual(['r3']));
        faults().kill(b);
        a.publish(await run.operation());
        a.publish(delta(run.runId, 4, 1));
        a.publish(await run.operation());
        await vi.waitFor(
          () => expect(onB.seen).toEqual(expect.arrayContaining(['r3', 'r4', 'r5'])),
          {
            timeout: 20_000,
          },
        );
        // The delta may be lost with the connection (a `seq` hole the SSE stream reports): the
        // durable events are not, and none is delivered twice or out of order.
        expect(onB.seen.filter((seen) => seen.startsWith('r'))).toEqual(['r3', 'r4', 'r5']);
        await vi.waitFor(() => expect(healthOf(b)).toBe('live'));
        errors.splice(0);
      });

      it('closes while the server is down, and delivers nothing after', async () => {
        const [a, b] = await pair();
        const run = await startRun(target.store);
        const onB = follow(b, run.runId);
        faults().down(b, true);
        await vi.waitFor(() => expect(healthOf(b)).toBe('deaf'));
        b.publish(delta(run.runId, 0, 1)); // cannot be sent: dropped, reported
        await b.close?.();
        open.splice(open.indexOf(b), 1);
        faults().down(b, false);
        a.publish(await run.operation());
        await a.flushed?.();
        const witness = await openBus();
        const onWitness = follow(witness, run.runId);
        a.publish(await run.operation());
        await vi.waitFor(() => expect(onWitness.seen).toContain('r4'));
        expect(onB.seen).toEqual(['d0.1']); // its own delta, delivered when published
        errors.splice(0);
      });
    }
  });
}
