/**
 * The `runlight` bin as a user gets it from the packed `@runlight/cli` (`pnpm test:packages`,
 * with `--only=install` or `--only=cli`): in the scratch app where the tarballs are installed,
 * `npx runlight --help` and `--version` answer, a usage error exits 3, and `runlight tail`
 * follows a run of the installed runtime (served on loopback by a small Node script there) to
 * its end and exits 0 — the CI smoke test the CLI is for.
 */
import { execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Serves the installed runtime's routes on loopback with one scripted run; prints its base URL. */
const SERVER = `import { createServer } from 'node:http';
import {
  createAgentRuntime, createAgentRuntimeStore, createMemoryDriver, createRunHandlers,
  createRunRouter, RunEventHub, toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';

const store = createAgentRuntimeStore(createMemoryDriver());
const runtime = createAgentRuntime({ store, events: new RunEventHub(), owner: 'cli-check' });
const listener = toNodeListener(createRunRouter({
  handlers: createRunHandlers({ store, runtime }), basePath: '/api', authorize: 'public',
}));
const server = createServer(listener).listen(0, '127.0.0.1', async () => {
  const handle = runtime.startRun({
    runId: 'cli-check-run',
    model: scriptedModel([{ firstTokenMs: 300, tokenMs: 20, text: 'Hello from the check.' }]),
    messages: [{ role: 'user', content: 'Hi' }],
  });
  await handle.created;
  process.stdout.write(\`http://127.0.0.1:\${server.address().port}/api\\n\`);
});
process.on('SIGTERM', () => process.exit(0));
`;

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function npx(args: string[], cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['--no-install', 'runlight', ...args],
      { cwd, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function expectExit(what: string, exit: Exit, code: number, output: RegExp): void {
  if (exit.code !== code || !output.test(exit.stdout + exit.stderr)) {
    throw new Error(`${what}: exit ${exit.code} (expected ${code})\n${exit.stdout}${exit.stderr}`);
  }
}

/** Runs the checks in `scratch`, where `@runlight/cli` and `@runlight/runtime` are installed. */
export async function checkCli(scratch: string, version: string): Promise<void> {
  expectExit('npx runlight --help', await npx(['--help'], scratch), 0, /^Usage: runlight /m);
  expectExit(
    'npx runlight --version',
    await npx(['--version'], scratch),
    0,
    new RegExp(`^${version}$`, 'm'),
  );
  expectExit('npx runlight tail (no URL)', await npx(['tail'], scratch), 3, /name the base URL/);

  await writeFile(join(scratch, 'cli-check-server.mjs'), SERVER);
  const server = spawn(process.execPath, ['cli-check-server.mjs'], {
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let output = '';
      server.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('\n')) resolve(output.trim());
      });
      server.once('exit', (code) => reject(new Error(`the check's server exited (${code})`)));
    });
    const tail = await npx(['tail', baseUrl, 'cli-check-run', '--text'], scratch);
    expectExit('npx runlight tail', tail, 0, /Hello from the check\.\n.*Completed\n$/s);
    const missing = await npx(['tail', baseUrl, 'no-such-run', '--wait', '0'], scratch);
    expectExit(
      'npx runlight tail (a run that does not exist)',
      missing,
      4,
      /This run does not exist/,
    );
  } finally {
    server.kill('SIGTERM');
  }
}
