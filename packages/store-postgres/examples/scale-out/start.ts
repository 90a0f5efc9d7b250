/**
 * The production shape on one machine: 1 runner + 2 gateways, joined by PostgreSQL (the store
 * and the LISTEN/NOTIFY event bus). A load balancer would spread clients over the gateways.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm example:scale-out
 *   pnpm example:scale-out --check   # follow demo-1 on both gateways, compare, exit
 *
 * Then e.g. `curl -N localhost:3101/api/runs/demo-3/events` and the same on :3102.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';

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
  // Watchers on both gateways first; then the runner executes the run.
  const runId = `check-${Date.now()}`;
  const deployment = await connectPostgresDeployment({ schema: process.env.RUNLIGHT_SCHEMA });
  await deployment.store.createRun({ runId });
  const followed = gateways.map(async ({ origin }) =>
    (await fetch(`${origin}/api/runs/${runId}/events`)).text(),
  );
  await start('./runner.ts', { RUN_EVERY_MS: '600000', FIRST_RUN: runId });
  const texts = (await Promise.all(followed)).map((body) =>
    [...body.matchAll(/"delta":"([^"]*)"/g)].map((match) => match[1]).join(''),
  );
  const same = texts[0] === texts[1] && texts[0]!.length > 0;
  console.log(
    same ? `both gateways streamed: ${texts[0]}` : `gateways differ: ${JSON.stringify(texts)}`,
  );
  await deployment.close();
  await stop();
  process.exit(same ? 0 : 1);
}
