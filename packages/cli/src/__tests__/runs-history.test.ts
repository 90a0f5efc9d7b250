import { stripVTControlCharacters } from 'node:util';
import { buildRunTimeline } from '@runlight/client';
import type { RunOperationEvent } from '@runlight/protocol';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { gated, realServers, runCli, user, waitFor } from './harness';

const serve = realServers();

const lookup = tool({
  description: 'Looks something up',
  inputSchema: jsonSchema<{ q: string }>({
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
  }),
  execute: async () => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { found: true };
  },
});

/**
 * Starts a run that completes (after `firstTokenMs`) or fails at its request; with `gate`, its
 * model request waits for it (a run still going when the command opens its stream, however
 * slow the machine).
 */
async function start(
  server: Awaited<ReturnType<typeof serve>>,
  runId: string,
  end: 'completes' | 'fails',
  gate?: Promise<void>,
) {
  const step =
    end === 'completes'
      ? { firstTokenMs: 200, tokenMs: 10, text: 'All done here.' }
      : { firstTokenMs: 300, error: { at: 'request' as const } };
  const { model, open } = gated(scriptedModel([step]));
  if (gate === undefined) open();
  else void gate.then(open);
  const handle = server.runtime.startRun({ runId, model, messages: user('Hi') });
  await handle.created;
}

describe('runlight runs: several runs over one multiplexed stream', () => {
  it('off a TTY, each run’s phase lines with its id; exits 1 when any failed', async () => {
    const server = await serve();
    let open = () => {};
    const streamOpen = new Promise<void>((resolve) => {
      open = resolve;
    });
    await start(server, 'run-a', 'completes', streamOpen);
    await start(server, 'run-b', 'fails');
    const runs = runCli(['runs', server.baseUrl, 'run-a', 'run-b']);
    // run-a answers once the command's one stream is open (both runs ended before it: none).
    await waitFor(() =>
      expect(server.requests.some((request) => request.includes('/run-events'))).toBe(true),
    );
    open();
    expect(await runs.exit).toBe(EXIT_CODES.failed);
    const lines = runs.lines();
    expect(lines).toContainEqual(expect.stringMatching(/^run-a {2}\S+\s+\+\S+ s {2}Completed$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^run-b {2}\S+\s+\+\S+ s {2}Failed: The model provider failed$/),
    );
    // One event stream for both runs: the multiplexed route, no per-run stream.
    expect(server.requests.filter((request) => request.includes('/run-events'))).not.toEqual([]);
    expect(server.requests.filter((request) => /\/runs\/[^/]+\/events/.test(request))).toEqual([]);
  });

  it('on a TTY, a table redrawn in place; --json ends with a summary; all completed exits 0', async () => {
    const server = await serve();
    await start(server, 'run-c', 'completes');
    await start(server, 'run-d', 'completes');
    const table = runCli(['runs', server.baseUrl, 'run-c', 'run-d'], { tty: true });
    const json = runCli(['runs', server.baseUrl, 'run-c', 'run-d', '--json']);
    expect(await table.exit).toBe(0);
    expect(await json.exit).toBe(0);
    const frames = table.stdout().split('\x1b[3A\r\x1b[J');
    expect(frames.length).toBeGreaterThan(1);
    const last = stripVTControlCharacters(frames.at(-1)!).split('\n');
    expect(last[0]).toMatch(/^RUN {4}STATUS\s+TIME$/);
    expect(last[1]).toMatch(/^run-c {2}Completed\s+\d+\.\d s$/);
    expect(last[2]).toMatch(/^run-d {2}Completed\s+\d+\.\d s$/);
    const records = json.lines().map((line) => JSON.parse(line));
    expect(records.at(-1)).toEqual({
      type: 'summary',
      runs: { 'run-c': 'completed', 'run-d': 'completed' },
      exitCode: 0,
    });
  });
});

describe('runlight history: the waterfall', () => {
  it('prints every operation and the time between them, worded as RunTimeline words them', async () => {
    const server = await serve();
    await server.runtime.startRun({
      runId: 'run-h',
      model: scriptedModel([
        { firstTokenMs: 80, toolCalls: [{ toolName: 'lookup', input: { q: 'x' } }] },
        { firstTokenMs: 80, tokenMs: 10, text: 'Found it.' },
      ]),
      messages: user('Find x'),
      tools: { lookup },
      stopWhen: isStepCount(3),
    }).done;
    const human = runCli(['history', server.baseUrl, 'run-h']);
    const json = runCli(['history', server.baseUrl, 'run-h', '--json']);
    expect(await human.exit).toBe(0);
    expect(await json.exit).toBe(0);
    const lines = human.lines();
    expect(lines[0]).toMatch(/^run-h {2}Completed {2}\S+ s since \S+Z$/);
    expect(lines[1]).toMatch(/^OPERATION\s+START\s+TIME {2}RESULT$/);
    expect(lines.slice(2, 5)).toEqual([
      expect.stringMatching(/^Model request\s+\+0\.0 s {2}▒+█+\s+\S+ s {2}completed$/),
      expect.stringMatching(
        /^Between operations\s+\+\S+ s\s+·+\s+\S+ s {2}tools, approvals or other work$/,
      ),
      expect.stringMatching(/^Model request\s+\+\S+ s\s+▒+█+\s+\S+ s {2}completed$/),
    ]);
    expect(lines.at(-1)).toBe('▒ waiting for the model  █ streaming  · between operations');

    const record = JSON.parse(json.stdout());
    const events = await server.store.readEvents('run-h');
    const model = buildRunTimeline(
      events.filter((event): event is RunOperationEvent => event.type === 'run-operation'),
    );
    expect(record).toMatchObject({ type: 'history', runId: 'run-h', activity: 'completed' });
    expect(
      record.rows.map((row: { id: string; startMs: number }) => [row.id, row.startMs]),
    ).toEqual(
      model.rows.map((row) =>
        row.type === 'gap' ? [row.gap.id, row.gap.startMs] : [row.span.id, row.span.startMs],
      ),
    );
  });
});
