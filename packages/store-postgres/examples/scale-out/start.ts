/**
 * The production shape on one machine: 1 runner + 2 gateways, joined by PostgreSQL (the store
 * and the LISTEN/NOTIFY event bus). A load balancer would spread clients over the gateways.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm example:scale-out
 *   pnpm example:scale-out --check   # follow one run on both gateways, compare, exit 0 or 1
 *
 * `--check` follows one run on both gateways with the client a page uses, then compares each
 * gateway's text with the store's final message and with the scripted answer, counting each
 * sentence (`check.ts`): any duplicated or lost text, or a run that did not complete, exits 1.
 *
 * Then e.g. `curl -N localhost:3101/api/runs/demo-3/events` and the same on :3102.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';
import { findMismatches, followRun, REPEAT, SCRIPTED_ANSWER, SENTENCE, textOf } from './check';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
process.env.RUNLIGHT_SCHEMA ??= 'runlight_scale_out';
const check = process.argv.includes('--check');

// Migrate once before the processes start (it is idempotent and safe from all of them too).
await (await connectPostgresDeployment({ schema: process.env.RUNLIGHT_SCHEMA })).close();

const children: ChildProcess[] = [];
function start(file: string, env: Record<string, string>): Promise<{ origin?: string }> {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    env: { ...process.env, ...env },
    // The workspace sources, as `pnpm example:scale-out` resolves them (no build needed).
    execArgv: ['--unhandled-rejections=strict', '--import', 'tsx', '--conditions=@runlight/source'],
  });
  children.push(child);
  return new Promise((resolve) =>
    child.on('message', (message: { type: string; origin?: string }) => {
      if (message.type === 'ready') resolve(message);
    }),
  );
}
/** SIGTERM to every child (each closes gracefully: runners hand their runs off), then waits. */
const stop = () =>
  Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stop().then(() => process.exit(0)));
}

const gateways = await Promise.all([
  start('./gateway.ts', { PORT: check ? '0' : '3101' }),
  start('./gateway.ts', { PORT: check ? '0' : '3102' }),
]);
if (!check) {
  await start('./runner.ts', { RUN_EVERY_MS: '3000' });
  console.log('1 runner + 2 gateways: http://127.0.0.1:3101/api and :3102/api (Ctrl-C stops)');
} else {
  // Watchers on both gateways first (the client a page uses); then the runner executes the run.
  const runId = `check-${Date.now()}`;
  const deployment = await connectPostgresDeployment({ schema: process.env.RUNLIGHT_SCHEMA });
  await deployment.store.createRun({ runId });
  const followed = gateways.map(({ origin }) => followRun(`${origin}/api`, runId));
  await start('./runner.ts', { RUN_EVERY_MS: '600000', FIRST_RUN: runId });
  const problems = await Promise.all(followed).then(
    async (runs) => {
      const snapshot = await deployment.store.getSnapshot(runId);
      const problems = findMismatches({
        expected: SCRIPTED_ANSWER,
        sentences: [SENTENCE],
        stored: textOf(snapshot.assistant?.message),
        gateways: runs.map((run, index) => ({ label: gateways[index]!.origin!, text: run.text })),
      });
      for (const [index, run] of runs.entries())
        if (run.status !== 'completed') problems.push(`${gateways[index]!.origin}: ${run.status}`);
      if (snapshot.run.status !== 'completed') problems.push(`store: ${snapshot.run.status}`);
      return problems;
    },
    (error: unknown) => [error instanceof Error ? error.message : String(error)],
  );
  if (problems.length === 0) {
    console.log(
      `check passed: the store and both gateways hold the scripted answer ("${SENTENCE}" ×${REPEAT})`,
    );
  } else {
    console.error(`check FAILED for ${runId}:\n  ${problems.join('\n  ')}`);
  }
  await deployment.close();
  await stop();
  process.exit(problems.length === 0 ? 0 : 1);
}
