/**
 * A runner process: executes runs and serves nothing. Here it starts a scripted demo run
 * (`demo-1`, `demo-2`, …) every `RUN_EVERY_MS`; an application starts runs from its own queue,
 * API or jobs instead.
 */
import { RuntimeClosedError } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';
import { SCRIPTED_ANSWER } from './check';

const deployment = await connectPostgresDeployment({ schema: process.env.RUNLIGHT_SCHEMA });
// A recovery loop comes with it: runs abandoned by a dead runner end instead of hanging.
const { runtime } = deployment.startRunner({ owner: `runner-${process.pid}` });
let count = 0;
const every = Number(process.env.RUN_EVERY_MS ?? 3_000);

async function startDemoRun(): Promise<void> {
  count++;
  const runId = count === 1 && process.env.FIRST_RUN ? process.env.FIRST_RUN : `demo-${count}`;
  await deployment.store.createRun({ runId }).catch(() => {}); // watchers may connect at once
  process.send?.({ type: 'run', runId });
  const model = scriptedModel([{ firstTokenMs: 300, tokenMs: 30, text: SCRIPTED_ANSWER }]);
  try {
    const run = await runtime.startRun({
      runId,
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    }).done;
    // `running` after a graceful close: the run was handed off to another runner.
    console.log(`[runner] ${runId} ${run.status}`);
  } catch (error) {
    if (!RuntimeClosedError.isInstance(error)) throw error;
  }
}

const timer = setInterval(() => void startDemoRun(), every);
void startDemoRun();
process.send?.({ type: 'ready' });
// A deploy: stop taking runs, stop the in-flight ones at a checkpoint and hand their leases
// off (another runner's recovery continues them at once), then exit 0.
const shutdown = async () => {
  clearInterval(timer);
  await deployment.close({ timeoutMs: 10_000 });
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
