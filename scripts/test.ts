/**
 * `pnpm test`: every check the repository has, as concurrent as two cores allow, then each
 * step's time. Two stages:
 *
 * 1. typecheck, lint and the one build of every published package (tsdown), side by side;
 * 2. on that build, in three lanes side by side: the unit tests (Vitest, several workers); the
 *    small deployment soak; and, one after another, the package checks (tarballs in apps
 *    outside the workspace, fresh scaffolds), the Next.js example and the shadcn registry app.
 *    Most of their time is spent waiting (on timers, Chromium, npm, child processes), so
 *    running the lanes together fills the cores.
 *
 * A stage starts only when the one before passed. Each step's output is kept whole and printed
 * as one block when the step ends (never interleaved); a failed step is named again at the end
 * with its last lines. Exit status: 0 only when every step passed.
 *
 * `--only=unit,next` runs some steps (stage 1's build still runs first when a stage-2 step
 * needs it); `--list` prints the steps.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Step {
  readonly name: string;
  readonly stage: 1 | 2;
  /** Steps of one lane run one after another; lanes run side by side. */
  readonly lane: string;
  readonly command: readonly string[];
}

const STEPS: readonly Step[] = [
  { name: 'typecheck', stage: 1, lane: 'types', command: ['pnpm', 'typecheck'] },
  { name: 'lint', stage: 1, lane: 'lint', command: ['pnpm', 'lint'] },
  { name: 'build', stage: 1, lane: 'build', command: ['pnpm', 'build'] },
  { name: 'unit', stage: 2, lane: 'unit', command: ['pnpm', 'test:unit'] },
  { name: 'soak', stage: 2, lane: 'soak', command: ['pnpm', 'test:soak'] },
  // The three that build apps (npm installs, `next build`, Vite) take turns: side by side they
  // would load two cores enough to stretch the unit tests' loopback timings.
  { name: 'packages', stage: 2, lane: 'apps', command: ['pnpm', 'test:packages', '--skip-build'] },
  { name: 'next', stage: 2, lane: 'apps', command: ['pnpm', 'test:next'] },
  { name: 'registry', stage: 2, lane: 'apps', command: ['pnpm', 'test:registry', '--skip-build'] },
];

interface Outcome {
  readonly step: Step;
  readonly seconds: number;
  readonly ok: boolean;
  readonly output: string;
}

const LOGS = join(tmpdir(), `runlight-test-logs-${process.pid}`);

function run(step: Step): Promise<Outcome> {
  const started = performance.now();
  process.stdout.write(`▸ ${step.name} started: ${step.command.join(' ')}\n`);
  return new Promise((resolve) => {
    const [command, ...commandArgs] = step.command as [string, ...string[]];
    const child = spawn(command, commandArgs, {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const finish = (ok: boolean, extra = '') => {
      const seconds = (performance.now() - started) / 1000;
      const output = Buffer.concat(chunks).toString('utf8') + extra;
      process.stdout.write(
        `\n━━━ ${step.name}: ${ok ? 'passed' : 'FAILED'} in ${seconds.toFixed(1)} s ━━━\n${output}\n`,
      );
      resolve({ step, seconds, ok, output });
    };
    child.on('error', (error) => finish(false, `\n${error.message}\n`));
    child.on('close', (code, signal) =>
      finish(code === 0, code === 0 ? '' : `\nexited with ${signal ?? code}\n`),
    );
  });
}

const args = process.argv.slice(2);
if (args.includes('--list')) {
  for (const step of STEPS) process.stdout.write(`${step.stage} ${step.name}\n`);
  process.exit(0);
}
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const unknown = only?.filter((name) => !STEPS.some((step) => step.name === name)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(`unknown step(s): ${unknown.join(', ')}; see --list\n`);
  process.exit(2);
}
const chosen = STEPS.filter(
  (step) =>
    only === undefined ||
    only.includes(step.name) ||
    // The package, Next.js and registry checks use the build; they never build themselves.
    (step.name === 'build' &&
      STEPS.some(
        (s) => s.stage === 2 && s.name !== 'unit' && s.name !== 'soak' && only.includes(s.name),
      )),
);

const startedAll = performance.now();
const outcomes: Outcome[] = [];
for (const stage of [1, 2] as const) {
  const steps = chosen.filter((step) => step.stage === stage);
  const lanes = new Map<string, Step[]>();
  for (const step of steps) lanes.set(step.lane, [...(lanes.get(step.lane) ?? []), step]);
  const runLane = async (lane: Step[]) => {
    const done: Outcome[] = [];
    for (const step of lane) {
      const outcome = await run(step);
      done.push(outcome);
      if (!outcome.ok) break;
    }
    return done;
  };
  outcomes.push(...(await Promise.all([...lanes.values()].map(runLane))).flat());
  if (outcomes.some((outcome) => !outcome.ok)) break;
}
const wall = (performance.now() - startedAll) / 1000;

await mkdir(LOGS, { recursive: true });
for (const outcome of outcomes) {
  await writeFile(join(LOGS, `${outcome.step.name}.log`), outcome.output);
}
const failed = outcomes.filter((outcome) => !outcome.ok);
for (const outcome of failed) {
  const tail = outcome.output.trimEnd().split('\n').slice(-40).join('\n');
  process.stdout.write(`\n✗ ${outcome.step.name} failed; its last lines:\n${tail}\n`);
}
const skipped = chosen.filter((step) => !outcomes.some((outcome) => outcome.step === step));
process.stdout.write('\nStep times (stage 1, then stage 2; steps of a stage run side by side):\n');
for (const outcome of outcomes) {
  process.stdout.write(
    `  ${outcome.step.stage}  ${outcome.step.name.padEnd(10)} ${outcome.seconds.toFixed(1).padStart(7)} s  ${outcome.ok ? 'ok' : 'FAILED'}\n`,
  );
}
for (const step of skipped)
  process.stdout.write(`  ${step.stage}  ${step.name.padEnd(10)}       –    not run\n`);
process.stdout.write(
  `  wall      ${wall.toFixed(1).padStart(7)} s; load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}; logs in ${LOGS}\n`,
);
process.exit(failed.length === 0 && skipped.length === 0 ? 0 : 1);
