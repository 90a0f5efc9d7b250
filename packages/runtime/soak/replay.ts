/**
 * Replays one schedule of the fault simulation and prints its trace: the schedule, the
 * violations, the injected faults, the runtime log, the stored event log and what each runtime
 * published. `pnpm tsx --conditions=@runlight/source packages/runtime/soak/replay.ts <seed>`
 */
import type { DurableRunEvent } from '@runlight/protocol';
import { runSchedule } from '../src/runner/__tests__/fault-simulation/run-schedule';

const seed = Number(process.argv[2]);
const { schedule, violations, trace } = await runSchedule(seed);
const { log, published, ...rest } = await trace();
const line = (event: DurableRunEvent) =>
  `${event.revision} ${event.type} ${
    event.type === 'run-status'
      ? `${event.change} ${event.owner} #${event.fencingToken}`
      : event.type === 'run-operation'
        ? `${event.operation.id} ${event.operation.phase}`
        : ''
  }`;
console.log(JSON.stringify({ schedule, violations, ...rest }, null, 1));
console.log('log', log.map(line));
for (const [name, events] of Object.entries(published))
  console.log(`published by ${name}`, events.map(line));
