/**
 * A runner of the clock-skew test in its own process, started with the `clock-offset.ts`
 * preload: a deployment runner (recovery loop on) over PostgreSQL. Argument: a JSON object
 * { connectionString, schema, owner, leaseMs }. Prints `{ ready, clockError }` once ready — the
 * process's wall clock minus the database's, so the test proves the offset took — then each
 * line on stdin `{ runId, tokens }` starts a run; each run that ends prints `{ runId, status }`.
 */
import { createInterface } from 'node:readline';
import { scriptedModel } from '@runlight/runtime/testing';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';

const { connectionString, schema, owner, leaseMs } = JSON.parse(process.argv[2]!);
const write = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const messages = [{ role: 'user' as const, content: 'Go' }];
/** One word per token, so a text that shrank or restarted shows in the stored answer. */
const words = (tokens: number) => Array.from({ length: tokens }, (_, i) => `w${i} `);

const deployment = await connectPostgresDeployment({
  connectionString,
  schema,
  migrate: false,
  max: 6,
  onError: (error) => process.stderr.write(`onError: ${(error as Error).message}\n`),
});
const runner = deployment.startRunner({
  owner,
  leaseMs,
  recovery: {
    intervalMs: 100,
    // A run taken over is answered again from the start (the step is repeated).
    resolveRun: () => ({ model: scriptedModel([{ tokenMs: 5, text: words(10) }]), messages }),
  },
});
const [row] = (
  await deployment.pool.query<{ ms: number }>(
    'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
  )
).rows;
write({ ready: owner, clockError: Date.now() - row!.ms });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { runId, tokens } = JSON.parse(line) as { runId: string; tokens: number };
  runner.runtime
    .startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 5, tokenMs: 60, text: words(tokens) }]),
      messages,
    })
    .done.then(
      (run) => write({ runId, status: run.status, owner: run.owner }),
      (error: unknown) => write({ runId, error: String(error) }),
    );
}
