/**
 * The step runner `pnpm test:packages` and `pnpm test:registry` share: each step is named and
 * timed as it runs (`timings` for the summary), and a command that fails prints its output.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Every step run so far, with its seconds, in order. */
export const timings: [string, number][] = [];

export async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stdout.write(`▸ ${name}\n`);
  try {
    return await work();
  } finally {
    const seconds = (performance.now() - started) / 1000;
    timings.push([name, seconds]);
    process.stdout.write(`  ${name}: ${seconds.toFixed(1)} s\n`);
  }
}

/** Runs a command; on failure prints its output and throws. */
export async function sh(command: string, commandArgs: string[], cwd: string, env: object = {}) {
  try {
    return await run(command, commandArgs, {
      cwd,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    process.stderr.write(`${failed.stdout ?? ''}${failed.stderr ?? ''}`);
    throw new Error(`${command} ${commandArgs.join(' ')} failed in ${cwd}`);
  }
}
