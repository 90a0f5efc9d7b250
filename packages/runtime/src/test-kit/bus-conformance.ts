import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentRuntimeStore, RunEventBus, RunEventSourceHealth } from '../index';
import { busDelta as delta, followBus as follow, startBusRun as startRun } from './bus-fixtures';

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
  /** Whether the target has `faults` (a connection a test can cut): the fault cases run. */
  faults: boolean;
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

      it('reports an announced event the store does not hold (processes on other stores), delivering nothing for it', async () => {
        const reported: unknown[] = [];
        const [a, b] = [await openBus(), await openBus((error) => reported.push(error))];
        const onB = follow(b, 'elsewhere');
        a.publish({
          type: 'run-status',
          runId: 'elsewhere',
          revision: 1,
          at: '2026-12-02T12:00:00.000Z',
          change: 'created',
          status: 'queued',
          owner: null,
          fencingToken: 0,
          failure: null,
        });
        await vi.waitFor(() => expect(reported).toHaveLength(1));
        // Naming the run (the wording is the transport's: the event missing, or the run).
        expect(String(reported[0])).toMatch(/elsewhere/);
        expect(onB.seen).toEqual([]);
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

    if (options.faults) {
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
