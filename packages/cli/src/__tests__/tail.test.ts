import { stripVTControlCharacters } from 'node:util';
import { formatElapsed } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import { scriptedModel } from '@runlight/runtime/testing';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { gated, realServers, runCli, user, waitFor } from './harness';

const serve = realServers();

/** `+1.2 s` as tail prints the time since the run was created, on the server's clock. */
const offset = (createdAt: string, at: string) =>
  `+${formatElapsed(Date.parse(at) - Date.parse(createdAt))}`;

/** A tail line: the record's timestamp, its offset, the words. */
const lineOf = (createdAt: string, at: string, words: string) =>
  expect.stringMatching(
    new RegExp(
      `^${at.replace(/[.]/g, '\\.')}\\s+${offset(createdAt, at).replace(/[.+]/g, '\\$&')}  ${words}$`,
    ),
  );

describe('runlight tail over real HTTP/SSE', () => {
  it('prints each phase with its original timestamp and elapsed time, and exits 0 on completion', async () => {
    const server = await serve();
    const { model, open } = gated(
      scriptedModel([{ firstTokenMs: 50, tokenMs: 40, text: 'Hello there, friend.' }]),
    );
    const handle = server.runtime.startRun({ runId: 'run-ok', model, messages: user('Hi') });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-ok']);
    // The model answers once the tail has seen it wait (a slow start would join later).
    await waitFor(() => expect(tail.stdout()).toContain('Waiting for the model'));
    open();
    expect(await tail.exit).toBe(EXIT_CODES.completed);
    const run = await server.store.getRun('run-ok');
    const operation = run?.lastOperation as RunOperation;
    expect(run?.status).toBe('completed');
    const lines = tail.lines();
    // The model request's phases, at the times its record holds; the end at the terminal commit.
    expect(lines).toContainEqual(
      lineOf(run!.createdAt, operation.startedAt, 'Waiting for the model'),
    );
    expect(lines).toContainEqual(
      lineOf(run!.createdAt, operation.firstOutputAt!, 'Writing the answer'),
    );
    expect(lines.at(-1)).toEqual(lineOf(run!.createdAt, run!.updatedAt, 'Completed'));
    const order = ['Waiting for the model', 'Writing the answer', 'Completed'].map((words) =>
      lines.findIndex((line) => line.endsWith(`  ${words}`)),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(tail.stdout()).not.toContain('\x1b[');
    expect(tail.stderr()).toBe('');
  });
});

describe('runlight tail: how the run ended is the exit code', () => {
  it('--text streams the answer between the phase lines; exits 0', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-text',
      model: scriptedModel([{ firstTokenMs: 100, tokenMs: 15, text: 'One two three four five.' }]),
      messages: user('Count'),
    });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-text', '--text']);
    expect(await tail.exit).toBe(0);
    const out = tail.stdout();
    expect(out.split('One two three four five.')).toHaveLength(2);
    expect(out.indexOf('Writing the answer')).toBeLessThan(out.indexOf('One two'));
    expect(out.indexOf('five.')).toBeLessThan(out.indexOf('Completed'));
    // The request's end follows the text it streamed, on a line of its own.
    expect(out).toMatch(/five\.\n\S+\s+\+\S+ s {2}Working\n\S+\s+\+\S+ s {2}Completed\n$/);
  });

  it('a provider failure: the failure in words, exit 1', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-fails',
      model: scriptedModel([{ firstTokenMs: 100, error: { at: 'request', message: 'sk-secret' } }]),
      messages: user('Hi'),
    });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-fails']);
    expect(await tail.exit).toBe(EXIT_CODES.failed);
    expect(tail.lines().at(-1)).toMatch(/ {2}Failed: The model provider failed$/);
    expect(tail.stdout()).not.toContain('sk-secret');
  });

  it('a cancelled run: exit 2', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-cancel',
      model: scriptedModel([{ firstTokenMs: 50, tokenMs: 30, text: 'word '.repeat(200) }]),
      messages: user('Talk'),
    });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-cancel']);
    await waitFor(() => expect(tail.stdout()).toContain('Writing the answer'));
    server.runtime.cancelRun('run-cancel');
    expect(await tail.exit).toBe(EXIT_CODES.cancelled);
    expect(tail.lines().at(-1)).toMatch(/ {2}Cancelled$/);
  });

  it('a tail started mid-run prints the phase it joins at its original time: the same lines as one that watched throughout', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-join',
      model: scriptedModel([{ firstTokenMs: 2_500, tokenMs: 20, text: 'Late but here.' }]),
      messages: user('Hi'),
    });
    await handle.created;
    const throughout = runCli(['tail', server.baseUrl, 'run-join']);
    await waitFor(() => expect(throughout.stdout()).toContain('Waiting for the model'));
    // Later, as a reload would: a new process, a new connection, mid-phase.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const joined = runCli(['tail', server.baseUrl, 'run-join']);
    expect(await throughout.exit).toBe(0);
    expect(await joined.exit).toBe(0);
    const all = throughout.lines();
    const from = all.findIndex((line) => line.endsWith('  Waiting for the model'));
    expect(joined.lines()).toEqual(all.slice(from));
    const startedAt = (await server.store.getRun('run-join')).lastOperation!.startedAt;
    expect(joined.lines()[0]).toMatch(new RegExp(`^${startedAt.replace('.', '\\.')} `));
  });

  it('--json: one record a line, the text as deltas, the end with its exit code', async () => {
    const server = await serve();
    const { model, open } = gated(
      scriptedModel([{ firstTokenMs: 100, tokenMs: 10, text: 'Structured output.' }]),
    );
    const handle = server.runtime.startRun({ runId: 'run-json', model, messages: user('Hi') });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-json', '--json', '--text'], { tty: true });
    // The model answers once the tail has seen it wait (a slow start would join later).
    await waitFor(() => expect(tail.stdout()).toContain('"activity":"waiting-for-model"'));
    open();
    expect(await tail.exit).toBe(0);
    const records = tail.lines().map((line) => JSON.parse(line));
    const run = await server.store.getRun('run-json');
    expect(
      records
        .filter((r) => r.type === 'text')
        .map((r) => r.delta)
        .join(''),
    ).toBe('Structured output.');
    expect(records).toContainEqual({
      type: 'phase',
      runId: 'run-json',
      activity: 'waiting-for-model',
      text: 'Waiting for the model',
      at: run.lastOperation!.startedAt,
      elapsedMs: Date.parse(run.lastOperation!.startedAt) - Date.parse(run.createdAt),
    });
    expect(records.at(-1)).toEqual({
      type: 'end',
      runId: 'run-json',
      status: 'completed',
      durationMs: Date.parse(run.updatedAt) - Date.parse(run.createdAt),
      exitCode: 0,
    });
    expect(tail.stdout()).not.toContain('\x1b');
  });
});

describe('runlight tail on a terminal', () => {
  it('colour and a ticking status line only on a TTY, never with NO_COLOR or --no-color', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-tty',
      model: scriptedModel([{ firstTokenMs: 500, tokenMs: 10, text: 'Coloured.' }]),
      messages: user('Hi'),
    });
    await handle.created;
    const tty = runCli(['tail', server.baseUrl, 'run-tty'], { tty: true });
    const noColor = runCli(['tail', server.baseUrl, 'run-tty'], {
      tty: true,
      env: { NO_COLOR: '1' },
    });
    const flag = runCli(['tail', server.baseUrl, 'run-tty', '--no-color'], { tty: true });
    const pipe = runCli(['tail', server.baseUrl, 'run-tty']);
    for (const run of [tty, noColor, flag, pipe]) expect(await run.exit).toBe(0);
    expect(tty.stdout()).toContain('\x1b[32mCompleted\x1b[39m');
    // The status line under the last phase is redrawn in place, and gone at the end.
    expect(tty.stdout()).toContain('\r\x1b[2K');
    expect(tty.stdout().endsWith('Completed\x1b[39m\n')).toBe(true);
    for (const run of [noColor, flag]) {
      const text = run.stdout().replaceAll('\r\x1b[2K', '');
      expect(stripVTControlCharacters(text)).toBe(text);
    }
    expect(pipe.stdout()).not.toContain('\x1b');
    expect(pipe.stdout()).not.toContain('\r');
    // Without colour, a terminal reads the same lines as a pipe.
    const plain = (text: string) =>
      text
        .split('\n')
        .map((line) => line.slice(line.lastIndexOf('\r\x1b[2K') + 1).replace('\x1b[2K', ''));
    expect(plain(noColor.stdout())).toEqual(plain(pipe.stdout()));
  });
});
