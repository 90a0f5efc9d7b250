import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@runlight/runtime/testing';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { realServers, user, waitFor } from './harness';

const serve = realServers();
const BIN = fileURLToPath(new URL('../bin.ts', import.meta.url));

/** The `runlight` bin in a process of its own (sources through tsx), as a CI step runs it. */
function runBin(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
}

describe('the runlight bin: the process exits with the run’s end', () => {
  it('exit code 1 for a failed run, 130 on Ctrl-C while a run goes on', async () => {
    const server = await serve();
    const failing = server.runtime.startRun({
      runId: 'bin-fails',
      model: scriptedModel([{ firstTokenMs: 2_000, error: { at: 'request' } }]),
      messages: user('Hi'),
    });
    const long = server.runtime.startRun({
      runId: 'bin-long',
      model: scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]),
      messages: user('Hi'),
    });
    await Promise.all([failing.created, long.created]);
    const fails = runBin(['tail', server.baseUrl, 'bin-fails']);
    const interrupted = runBin(['tail', server.baseUrl, 'bin-long']);
    expect(await fails.exit).toBe(EXIT_CODES.failed);
    expect(fails.stdout()).toMatch(/ {2}Failed: The model provider failed\n$/);
    await waitFor(() => expect(interrupted.stdout()).toContain('Waiting for the model'));
    interrupted.child.kill('SIGINT');
    expect(await interrupted.exit).toBe(EXIT_CODES.interrupted);
    server.runtime.cancelRun('bin-long');
    await long.done;
  });
});
