import { describe, expect, it } from 'vitest';
import { runSchedule } from './run-schedule';

/**
 * The seeded fault simulation (issue 10): each schedule drives one run through a faulty
 * driver, faulty scripted providers, cancels, a lease theft and approvals, then checks the
 * invariants. CI runs `FC_RUNS` (default 300) schedules from a base seed it prints;
 * `FC_SEED=<seed>` replays one schedule. `pnpm soak` runs 10,000.
 */
const replay = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const runs = Number(process.env.FC_RUNS ?? 300);
const base = replay ?? Number(process.env.FC_BASE_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** Seeds whose schedules found bugs on the way (each fixed since); replayed on every run. */
const FOUND = [
  28, 57, 70, 108, 150, 5184, 20016, 20160, 20417, 40094, 60093, 80001, 180136, 1009325,
  // A runtime acquiring again republished its earlier, published acquisition as a lost try.
  1977792899,
  // A creation whose answer a fault hid, then the run stolen before the retry (no bug: the
  // invariant named revision 1 unpublished; the thief's watchers catch it up from the log).
  410143120,
];

describe('fault simulation', () => {
  it.each(FOUND)('the schedule of seed %i that found a bug holds every invariant', async (seed) => {
    expect((await runSchedule(seed)).violations).toEqual([]);
  });

  it(`holds every invariant over ${replay === undefined ? runs : 1} schedules (base seed ${base})`, async () => {
    console.info(`[fault-simulation] base seed ${base}; replay one with FC_SEED=<seed>`);
    const found: string[] = [];
    for (let index = 0; index < (replay === undefined ? runs : 1); index++) {
      const seed = base + index;
      const { violations } = await runSchedule(seed);
      for (const violation of violations) found.push(`FC_SEED=${seed}: ${violation}`);
    }
    expect(found).toEqual([]);
  }, 600_000);
});
