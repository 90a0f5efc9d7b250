/**
 * `pnpm test:under-load [<pnpm test options>]`: `pnpm test` with CPU-bound processes beside it
 * (two by default, `RUNLIGHT_LOAD_PROCESSES` to change), the way a busy CI machine or a laptop
 * compiling something else runs it. No test may decide by how fast the machine is; this is how
 * that is checked. The load processes spin until the suite ends, whatever its outcome; the exit
 * status is the suite's.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const count = Number(process.env.RUNLIGHT_LOAD_PROCESSES ?? 2);

if (process.argv[2] === '--spin') {
  // One core's worth of work: a busy loop that yields to nothing, for ever.
  let x = 0;
  for (;;) x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
}

const spinners: ChildProcess[] = Array.from({ length: count }, () =>
  fork(fileURLToPath(import.meta.url), ['--spin'], { stdio: 'ignore' }),
);
const stopSpinners = () => {
  for (const spinner of spinners) spinner.kill('SIGKILL');
};
process.once('exit', stopSpinners);
console.log(`under load: ${count} CPU-bound processes beside pnpm test`);
const suite = spawn('pnpm', ['test', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => suite.kill(signal));
}
suite.on('close', (code, signal) => {
  stopSpinners();
  process.exit(code ?? (signal ? 1 : 0));
});
