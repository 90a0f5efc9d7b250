import { formatElapsed } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import { scriptedModel } from '@runlight/runtime/testing';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { realServers, runCli, user, waitFor } from './harness';

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
    const handle = server.runtime.startRun({
      runId: 'run-ok',
      model: scriptedModel([{ firstTokenMs: 300, tokenMs: 40, text: 'Hello there, friend.' }]),
      messages: user('Hi'),
    });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-ok']);
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
