import {
  type AgentRuntimeDriver,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { wholeStoredEvent } from '@runlight/runtime/driver';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, user, waitFor } from './harness';

const servers = loopbackServers();
afterEach(servers.closeAll);

/** A driver whose process dies after `appends` assistant appends: later writes never return. */
function dyingDriver(inner: AgentRuntimeDriver, appends: number): AgentRuntimeDriver {
  let seen = 0;
  return {
    load: (runId) => inner.load(runId),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (options) => inner.findExpiredRuns(options),
    async compareAndSet(runId, expected, next, events) {
      if (seen >= appends) return new Promise<boolean>(() => {});
      const written = await inner.compareAndSet(runId, expected, next, events);
      if (written && events.some((event) => wholeStoredEvent(event).type === 'assistant-append'))
        seen++;
      return written;
    },
  };
}

/** Words of a tail line, without its timestamp and offset. */
const words = (line: string) => line.replace(/^\S+\s+\+\S+ (s|min \d+ s) {2}/, '');

describe('runlight tail: a worker that dies, and the one that takes over', () => {
  it('prints the stall when the lease runs out, then the takeover, then the new owner’s phases to the end', async () => {
    const runId = 'run-takeover';
    const inner = createMemoryDriver();
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(inner);
    const a = createAgentRuntime({
      store: createAgentRuntimeStore(dyingDriver(inner, 2)),
      events: hub,
      owner: 'worker-a',
      checkpointEveryEvents: 4,
      leaseMs: 1_000,
      onLog: () => {},
    });
    // B's clock is a minute ahead: A's lease has run out for it.
    const later = createAgentRuntimeStore(inner, { now: () => new Date(Date.now() + 60_000) });
    const b = createAgentRuntime({ store: later, events: hub, owner: 'worker-b', onLog: () => {} });
    const listener = toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime: hub, heartbeatMs: 200 }),
        basePath: '/api',
        authorize: 'public',
      }),
    );
    const { origin } = await servers.listen(listener);
    void a.startRun({
      runId,
      model: scriptedModel([{ tokenMs: 5, text: 'a '.repeat(60) }]),
      messages: user('Go'),
    });
    await waitFor(() => store.getRun(runId));
    const tail = runCli(['tail', `${origin}/api`, runId]);
    const recovering = runCli(['tail', `${origin}/api`, runId, '--recovers', '--json']);
    await waitFor(() => expect(tail.stdout()).toContain('The worker stopped responding'));
    const stalledAt = (await store.getRun(runId)).leaseExpiresAt!;

    const recovered = b.recoverRun({
      runId,
      maxAttempts: 3,
      resolveRun: () => ({
        model: scriptedModel([{ firstTokenMs: 60, tokenMs: 5, text: 'b '.repeat(10) }]),
        messages: user('Go'),
      }),
    });
    expect(await recovered.outcome).toMatchObject({ result: 'recovered' });
    expect(await tail.exit).toBe(0);
    expect(await recovering.exit).toBe(0);

    const lines = tail.lines();
    const said = lines.map(words);
    const stall = said.indexOf('The worker stopped responding');
    const takeover = said.indexOf('Another worker took over');
    expect(stall).toBeGreaterThan(said.indexOf('Writing the answer'));
    expect(takeover).toBeGreaterThan(stall);
    // The new owner carries on with the phase it took over: when the tail sees that moment (a
    // burst may carry it past), the line says so, dated at the takeover — never back in time.
    const began = lines[said.indexOf('Writing the answer')]!.split(' ')[0]!;
    for (const line of said.slice(takeover + 1)) {
      if (line.includes(began)) expect(line).toBe(`Writing the answer — resumed (since ${began})`);
    }
    expect(said.slice(takeover + 1).some((line) => line.startsWith('Writing the answer'))).toBe(
      true,
    );
    expect(said.at(-1)).toBe('Completed');
    // Lines never go back in time, and one stall is one line.
    const times = lines.map((line) => Date.parse(line.split(' ')[0]!));
    for (let index = 1; index < times.length; index++) {
      expect(times[index]).toBeGreaterThanOrEqual(times[index - 1]!);
    }
    // One stall is one line: a stall line is never followed by another (a loaded machine may
    // let a lease lapse and be renewed before the worker dies: then a line between says so).
    const stalls = said.flatMap((line, index) =>
      line.startsWith('The worker stopped responding') ? [index] : [],
    );
    expect(stalls.length).toBeGreaterThanOrEqual(1);
    for (const [at, index] of stalls.entries()) {
      if (at > 0) expect(index).toBeGreaterThan(stalls[at - 1]! + 1);
    }
    // The stall is dated by the lease it outlived (the last stall's: on a loaded machine a
    // renewal can reach the tail after the lease it renewed ran out, and an earlier stall line is
    // dated by that lease); the takeover by the new owner's acquisition.
    expect(lines[stalls.at(-1)!]).toMatch(new RegExp(`^${stalledAt.replace('.', '\\.')} `));
    const acquired = (await store.readEvents(runId)).find(
      (event) =>
        event.type === 'run-status' && event.change === 'acquired' && event.fencingToken === 2,
    );
    expect(lines[takeover]).toMatch(new RegExp(`^${acquired!.at.replace('.', '\\.')} `));

    const records = recovering.lines().map((line) => JSON.parse(line));
    expect(records).toContainEqual(
      expect.objectContaining({
        type: 'phase',
        activity: 'stalled',
        text: 'The worker stopped responding — recovering',
        at: stalledAt,
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        type: 'takeover',
        text: 'Another worker took over',
        at: acquired!.at,
      }),
    );
  });
});
