/**
 * A soak runner: executes the runs the soak starts (IPC `start`), recovers expired ones, and
 * stops gracefully on SIGTERM. Its connection string goes through the soak's proxy.
 */
import { createAgentRuntime, createRunRecovery } from '@runlight/runtime';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';
import { executionOf } from './scenarios';

const schema = process.env.RUNLIGHT_SCHEMA ?? 'runlight_soak';
const leaseMs = Number(process.env.SOAK_LEASE_MS ?? 3_000);
const name = process.env.SOAK_NAME ?? `runner-${process.pid}`;
const errors: string[] = [];

const deployment = await connectPostgresDeployment({
  connectionString: process.env.DATABASE_URL,
  schema,
  migrate: false,
  onError: (error) => errors.push(String(error)),
});
const { pool } = deployment;
const recordEffect = async (key: string) => {
  await pool.query(
    `INSERT INTO "${schema}".soak_effects (key, count) VALUES ($1, 1)
     ON CONFLICT (key) DO UPDATE SET count = soak_effects.count + 1`,
    [key],
  );
};
const runtime = createAgentRuntime({
  store: deployment.store,
  events: deployment.bus,
  owner: `${name}-${process.pid}`,
  leaseMs,
  onLog: (entry) => {
    if (entry.level === 'error') console.error(`[${name}] ${entry.runId}: ${entry.message}`);
  },
});
const recovery = createRunRecovery({
  store: deployment.store,
  runtime,
  intervalMs: Number(process.env.SOAK_RECOVERY_MS ?? 500),
  maxAttempts: 10,
  resolveRun: (run, { message }) => executionOf(run.id, { message, recordEffect }),
});
recovery.start();

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

process.on('SIGTERM', async () => {
  await recovery.stop();
  const closable = runtime as typeof runtime & { close?: () => Promise<void> };
  await closable.close?.();
  await deployment.close();
  process.exit(0);
});
process.send?.({ type: 'ready' });
