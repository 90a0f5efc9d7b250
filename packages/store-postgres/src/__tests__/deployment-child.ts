/**
 * One process of a deployment, as the README builds it: `connectPostgresDeployment` (its own
 * pool), a runtime and a gateway on one bus. Argument: a JSON object { connectionString, schema }.
 * Prints `{ origin }` once ready; then each line on stdin is a run id to execute, and each run
 * that ends prints `{ runId, status }`.
 */
import { createInterface } from 'node:readline';
import { createAgentRuntime } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { startGateway } from '../scale-out/gateway';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';

const { connectionString, schema } = JSON.parse(process.argv[2]!);
const deployment = await connectPostgresDeployment({
  connectionString,
  schema,
  migrate: false,
  max: 6,
  onError: (error) => process.stderr.write(`onError: ${(error as Error).message}\n`),
});
const runtime = createAgentRuntime({
  store: deployment.store,
  events: deployment.bus,
  owner: 'child',
});
// The stored form (owner, fencing token): the test compares what it serves with the store's log.
const gateway = await startGateway({
  store: deployment.store,
  bus: deployment.bus,
  exposeInternals: true,
  authorize: 'public',
});
// Idle pooled connections beside the LISTEN one: what a server restart closes.
await Promise.all(Array.from({ length: 4 }, () => deployment.pool.query('SELECT pg_sleep(0.05)')));
process.stdout.write(`${JSON.stringify({ origin: gateway.origin })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const runId = line.trim();
  if (!runId) continue;
  const text = Array.from({ length: 10 }, (_, i) => `w${i} `);
  runtime
    .startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 5, tokenMs: 5, text }]),
      messages: [{ role: 'user', content: 'Go' }],
    })
    .done.then(
      (run) => process.stdout.write(`${JSON.stringify({ runId, status: run.status })}\n`),
      (error: unknown) =>
        process.stdout.write(`${JSON.stringify({ runId, error: String(error) })}\n`),
    );
}
