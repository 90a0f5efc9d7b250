import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createHttpFixture, Follower, ScriptedRun, type SseReader } from './http-test-kit';

type Step = 'delta' | 'checkpoint' | 'operation';

const scenario = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  steps: fc.array(fc.constantFrom<Step>('delta', 'delta', 'delta', 'checkpoint', 'operation'), {
    minLength: 5,
    maxLength: 40,
  }),
  clients: fc.array(
    fc.record({
      /** The writer step at which the client connects. */
      startAt: fc.nat(40),
      /** The client loads the snapshot first (the usual path) or replays from revision 0. */
      fromSnapshot: fc.boolean(),
      /** Messages read before each disconnect. */
      drops: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

/**
 * Connects, drops and resumes like a client: every message is applied by a strict `Follower`
 * (no gap, no duplicate, id = its own cursor); each reconnect sends that cursor in
 * `Last-Event-ID`.
 */
async function runClient(
  f: Awaited<ReturnType<typeof createHttpFixture>>,
  fromSnapshot: boolean,
  drops: number[],
): Promise<Follower> {
  const follower = fromSnapshot ? Follower.fromSnapshot(await f.snapshot('run-1')) : new Follower();
  const open = (): Promise<SseReader> =>
    follower.cursor === '0'
      ? f.events('run-1')
      : fromSnapshot && follower.log.length === 0
        ? f.events('run-1', { after: follower.cursor })
        : f.events('run-1', { cursor: follower.cursor });
  if (follower.terminal) return follower;
  for (const count of drops) {
    const reader = await open();
    for (let i = 0; i < count; i++) {
      const message = await reader.nextMessage();
      if (message === null) return follower; // the run ended
      follower.apply(message);
    }
    await reader.cancel();
    if (follower.terminal) return follower;
  }
  for (const message of await (await open()).rest()) follower.apply(message);
  return follower;
}

describe('events under concurrency', () => {
  it('delivers every event exactly once to clients that connect, drop and resume while the run writes (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ seed, steps, clients }) => {
        // Every store call answers on a later tick, so reads overlap publishes.
        const f = await createHttpFixture({ latency: { minMs: 0, maxMs: 2, seed } });
        try {
          const run = await ScriptedRun.start(f, 'run-1');
          let reached = 0;
          const waiters: { step: number; resolve: () => void }[] = [];
          const reach = (step: number) => {
            reached = step;
            for (const waiter of waiters.filter((w) => w.step <= step)) waiter.resolve();
          };
          const atStep = (step: number) =>
            step <= reached
              ? Promise.resolve()
              : new Promise<void>((resolve) => waiters.push({ step, resolve }));

          const followers = clients.map(async ({ startAt, fromSnapshot, drops }) => {
            await atStep(Math.min(startAt, steps.length));
            return runClient(f, fromSnapshot, drops);
          });
          // One client watches from the start without a drop: at every checkpoint it already
          // shows exactly the checkpoint's text.
          const watcher = new Follower(true);
          const watching = (await f.events('run-1')).rest();

          let open = false;
          for (const [index, step] of steps.entries()) {
            if (step === 'delta') {
              run.delta(`<${index}>`);
              await new Promise((resolve) => setImmediate(resolve));
            } else if (step === 'checkpoint') {
              await run.checkpoint();
            } else {
              await (open ? run.endOperation() : run.startOperation());
              open = !open;
            }
            reach(index + 1);
          }
          if (open) await run.endOperation();
          await run.checkpoint();
          await run.complete();
          reach(Number.POSITIVE_INFINITY);

          for (const message of await watching) watcher.apply(message);
          for (const follower of [watcher, ...(await Promise.all(followers))]) {
            expect(follower.terminal).toBe(true);
            expect(follower.revision).toBe(run.revision);
            expect(follower.text).toBe(run.text);
          }
          await vi.waitFor(() => expect(f.hub.listenerCount('run-1')).toBe(0));
        } finally {
          await f.close();
        }
      }),
      // On failure fast-check prints the seed and path to replay (`{ seed, path }`); shrinking
      // stops after the time limit so a hang still reports its counterexample.
      { numRuns: 30, interruptAfterTimeLimit: 40_000, markInterruptAsFailure: true },
    );
  }, 60_000);
});
