/**
 * `pnpm soak`: the seeded fault simulation of the runner over many schedules (default 10,000).
 * Prints schedules per second and every violated invariant with the seed that replays it
 * (`FC_SEED=<seed> pnpm vitest run --project runtime fault-simulation`, or
 * `pnpm tsx --conditions=@runlight/source packages/runtime/soak/replay.ts <seed>` for its trace).
 *
 *   SOAK_RUNS=10000 SOAK_SEED=1 pnpm soak
 */
import { runSchedule } from '../src/runner/__tests__/fault-simulation/run-schedule';

const runs = Number(process.env.SOAK_RUNS ?? 10_000);
const base = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`[soak] ${runs} schedules from base seed ${base}`);

const started = performance.now();
const found: string[] = [];
let last = started;
for (let index = 0; index < runs; index++) {
  const seed = base + index;
  const { violations } = await runSchedule(seed);
  for (const violation of violations) {
    const line = `FC_SEED=${seed}: ${violation}`;
    found.push(line);
    console.log(`[soak] violation ${line}`);
  }
  const now = performance.now();
  if (now - last > 10_000) {
    last = now;
    const rate = ((index + 1) / ((now - started) / 1000)).toFixed(0);
    console.log(`[soak] ${index + 1}/${runs} schedules, ${rate}/s, ${found.length} violations`);
  }
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `[soak] ${runs} schedules in ${seconds.toFixed(1)} s (${(runs / seconds).toFixed(0)} schedules/s), ${found.length} violations`,
);
for (const line of found) console.log(`[soak]   ${line}`);
process.exit(found.length === 0 ? 0 : 1);
