import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { runCli, waitFor } from './harness';

const SERVER = fileURLToPath(new URL('./fixtures/run-server-process.ts', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The server in a process of its own, and its base URL once it listens with the run started. */
async function serverProcess(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  await waitFor(() => expect(out).toContain('\n'), 60_000);
  return { child, baseUrl: JSON.parse(out.split('\n')[0]!).baseUrl };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe('runlight tail: the server dies mid-run', () => {
  it('exits 4 once the server has not answered for --wait, saying the server cannot be reached', async () => {
    const { child, baseUrl } = await serverProcess();
    // --wait long enough that a loaded machine's pause (a token every 200 ms, a heartbeat every
    // 200 ms) is not taken for a dead server before the test kills it.
    const human = runCli(['tail', baseUrl, 'run-gone', '--wait', '6']);
    const json = runCli(['tail', baseUrl, 'run-gone', '--wait', '3', '--json', '--text']);
    // The first snapshot is in (the phase it joined) and the stream is live (text beyond the
    // snapshot's: only the stream carries deltas).
    await waitFor(() => expect(human.stdout()).toContain('Writing the answer'), 60_000);
    const texts = () => json.lines().filter((line) => line.includes('"type":"text"')).length;
    await waitFor(() => expect(texts(), json.stdout()).toBeGreaterThanOrEqual(3), 60_000);
    await kill(child);
    const killedAt = Date.now();

    expect(await json.exit).toBe(EXIT_CODES.unreadable);
    const jsonAfterMs = Date.now() - killedAt;
    const records = json
      .lines()
      .map((line) => JSON.parse(line))
      .filter((record) => record.type !== 'text');
    expect(records.at(-1)).toEqual({
      type: 'error',
      runId: 'run-gone',
      reason: 'unavailable',
      text: 'The server cannot be reached',
      exitCode: 4,
    });

    expect(await human.exit).toBe(EXIT_CODES.unreadable);
    const humanAfterMs = Date.now() - killedAt;
    expect(human.stderr()).toBe('runlight: The server cannot be reached (run run-gone)\n');
    // The last known fact stays the line above; the client giving the server up is a line of
    // its own, and no stall is claimed from a lease nobody could have renewed to us.
    const lines = human.lines();
    expect(lines.at(-1)).toMatch(/ {2}The server cannot be reached$/);
    expect(lines.at(-2)).toMatch(/ {2}Writing the answer$/);
    expect(human.stdout()).not.toContain('stopped responding');
    // A figure for the record, not a verdict: the bound is --wait plus a second.
    console.info(
      `server killed → exit 4: --wait 3 after ${jsonAfterMs} ms, --wait 6 after ${humanAfterMs} ms`,
    );
    // A server process started through tsx on a loaded machine: its start is not the subject.
  }, 120_000);

  it('runs over the multiplexed stream ends too: exit 4 for a run whose server is gone', async () => {
    const { child, baseUrl } = await serverProcess();
    const runs = runCli(['runs', baseUrl, 'run-gone', '--wait', '3', '--json']);
    await waitFor(() => expect(runs.stdout()).toContain('"activity":"streaming"'), 60_000);
    await kill(child);
    expect(await runs.exit).toBe(EXIT_CODES.unreadable);
    const records = runs.lines().map((line) => JSON.parse(line));
    expect(records.at(-2)).toEqual({
      type: 'error',
      runId: 'run-gone',
      reason: 'unavailable',
      text: 'The server cannot be reached',
      exitCode: 4,
    });
    expect(records.at(-1)).toEqual({
      type: 'summary',
      runs: { 'run-gone': 'unreadable' },
      exitCode: 4,
    });
  }, 120_000);
});
