/**
 * A soak runner: executes the runs the soak starts (IPC `start`), recovers expired ones, and
 * stops gracefully on SIGTERM (`deployment.close()`: its in-flight runs are stopped at a
 * checkpoint and handed off to the other runners). Its connection string goes through the
 * soak's proxy; its bus is PostgreSQL's or Redis's (`SOAK_BUS`, `open-bus.ts`).
 */
import { connectSoakDeployment } from './open-bus';
import { executionOf } from './scenarios';

const schema = process.env.RUNLIGHT_SCHEMA ?? 'runlight_soak';
const leaseMs = Number(process.env.SOAK_LEASE_MS ?? 3_000);
const name = process.env.SOAK_NAME ?? `runner-${process.pid}`;
const errors: string[] = [];

const deployment = await connectSoakDeployment((error) => errors.push(String(error)));
const { pool } = deployment;
const recordEffect = async (key: string) => {
  await pool.query(
    `INSERT INTO "${schema}".soak_effects (key, count) VALUES ($1, 1)
     ON CONFLICT (key) DO UPDATE SET count = soak_effects.count + 1`,
    [key],
  );
};
const { runtime } = deployment.startRunner({
  owner: `${name}-${process.pid}`,
  leaseMs,
  onLog: (entry) => {
    if (entry.level === 'error') console.error(`[${name}] ${entry.runId}: ${entry.message}`);
  },
  recovery: {
    intervalMs: Number(process.env.SOAK_RECOVERY_MS ?? 500),
    maxAttempts: 10,
    resolveRun: (run, { message }) => executionOf(run.id, { message, recordEffect }),
  },
});

process.on('message', (message: { type: string; runId: string }) => {
  if (message.type !== 'start') return;
  const handle = runtime.startRun({
    runId: message.runId,
    ...executionOf(message.runId, { recordEffect }),
  });
  handle.done.catch(() => {});
  handle.created.then(
    () => process.send?.({ type: 'started', runId: message.runId }),
    (error: unknown) =>
      process.send?.({ type: 'start-failed', runId: message.runId, error: String(error) }),
  );
});

// A deploy: the recovery loop stops, the runtime stops taking runs and hands the in-flight
// ones off at a checkpoint, then the bus and the pool close.
process.once('SIGTERM', () => {
  void deployment.close({ timeoutMs: 10_000 }).then(() => process.exit(0));
});
process.send?.({ type: 'ready' });
