import { type CliIo, EXIT_CODES, main } from '@runlight/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioId } from '../../src/scenario-catalog';
import { type DemoServer, startDemoServer } from '../start-demo-server';

/**
 * `runlight` (`@runlight/cli`) against the playground's own server, as `pnpm demo` serves it: its
 * loopback `Host` guard, its run routes under `/api`, its multiplexed stream, its workers and
 * their recovery loop.
 */
let server: DemoServer;
let api: string;

beforeAll(async () => {
  server = await startDemoServer({ port: 0, log: () => {}, app: false });
  api = `http://127.0.0.1:${server.port}/api`;
});

afterAll(async () => {
  await server?.close();
});

async function start(scenario: ScenarioId): Promise<string> {
  const response = await fetch(`${api}/demo/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scenario }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

async function runlight(argv: string[]): Promise<{ code: number; lines: string[] }> {
  let stdout = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => {} },
    env: {},
  };
  const code = await main(argv, io);
  return { code, lines: stdout.split('\n').filter((line) => line !== '') };
}

/** A line's words, without its timestamp and offset. */
const words = (line: string) => line.replace(/^\S+\s+\+\S+( min \S+)? s {2}/, '');

describe('runlight against the playground', () => {
  it.each([
    // An 8 s provider wait: the tail joins while the run still waits, however loaded the
    // machine (quick-answer's 300 ms were over before a loaded tail joined).
    ['slow-first-token', EXIT_CODES.completed, 'Completed'],
    ['provider-failure', EXIT_CODES.failed, 'Failed: The model provider failed'],
    ['cancel-during-stream', EXIT_CODES.cancelled, 'Cancelled'],
  ] as const)('tail %s: exit %i, ends with "%s"', async (scenario, code, last) => {
    const runId = await start(scenario);
    const tail = await runlight(['tail', api, runId]);
    expect(tail.code).toBe(code);
    expect(words(tail.lines.at(-1)!)).toBe(last);
    expect(tail.lines.map(words)).toContain('Waiting for the model');
  });

  it('tail worker-crashes: the stall while worker-b recovers, the takeover, then completed', async () => {
    const runId = await start('worker-crashes');
    const tail = await runlight(['tail', api, runId, '--recovers']);
    expect(tail.code).toBe(EXIT_CODES.completed);
    const said = tail.lines.map(words);
    const stall = said.indexOf('The worker stopped responding — recovering');
    expect(stall).toBeGreaterThan(said.indexOf('Writing the answer'));
    expect(said.indexOf('Another worker took over')).toBeGreaterThan(stall);
    expect(said.at(-1)).toBe('Completed');
  });

  it('runs over the multiplexed stream, and history of a finished run', async () => {
    const ids = [await start('quick-answer'), await start('tool-steps')];
    const runs = await runlight(['runs', api, ...ids, '--json']);
    expect(runs.code).toBe(EXIT_CODES.completed);
    expect(JSON.parse(runs.lines.at(-1)!)).toMatchObject({ type: 'summary', exitCode: 0 });
    const history = await runlight(['history', api, ids[1]!]);
    expect(history.code).toBe(0);
    expect(history.lines[0]).toContain('Completed');
    expect(history.lines.filter((line) => line.startsWith('Model request')).length).toBeGreaterThan(
      1,
    );
  });
});
