import { createRunlightClient } from '@runlight/client';
import { scriptedModel } from '@runlight/runtime/testing';
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { realServers, runCli, user, waitFor } from './harness';

const serve = realServers();

const pay = tool({
  description: 'Pays an amount',
  inputSchema: jsonSchema<{ amount: number }>({
    type: 'object',
    properties: { amount: { type: 'number' } },
    required: ['amount'],
  }),
  execute: async ({ amount }) => ({ paid: amount }),
});

describe('runlight tail: retries and approvals', () => {
  it('a retried model request: the countdown to the next attempt, from the record’s retryAt', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-retry',
      model: scriptedModel([
        { firstTokenMs: 100, error: { at: 'request', retryAfterMs: 1_500, status: 429 } },
        { firstTokenMs: 50, text: 'Got through.' },
      ]),
      messages: user('Hi'),
    });
    await handle.created;
    const human = runCli(['tail', server.baseUrl, 'run-retry']);
    const json = runCli(['tail', server.baseUrl, 'run-retry', '--json']);
    expect(await human.exit).toBe(0);
    expect(await json.exit).toBe(0);
    // What RunStatus shows visibly: whole seconds left on the server's clock, the attempt of all.
    expect(human.lines()).toContainEqual(
      // Seconds left when the line was printed (1 or 2; "now" on a machine too slow to tell).
      expect.stringMatching(/ {2}(Retrying in [12] s|Retrying now) \(attempt 2 of 3\)$/),
    );
    const retry = json
      .lines()
      .map((line) => JSON.parse(line))
      .find((record) => record.retryAt !== undefined);
    const failed = (await server.store.readEvents('run-retry')).find(
      (event) => event.type === 'run-operation' && event.operation.phase === 'failed',
    );
    if (failed?.type !== 'run-operation') throw new Error('no failed attempt recorded');
    expect(retry).toMatchObject({
      activity: 'waiting-for-model',
      attempt: 2,
      maxAttempts: 3,
      retryAt: failed.operation.retryAt,
      at: failed.operation.endedAt,
    });
    // The retry attempt waits for its first output with its own words, then it streams.
    const words = human.lines().map((line) => line.replace(/^\S+\s+\+\S+ s {2}/, ''));
    expect(words).toContain('Waiting for the model (attempt 2 of the request)');
    expect(words.at(-1)).toBe('Completed');
  });

  it('a run awaiting approval: the tool and its approval id; answered, it goes on to completion', async () => {
    const server = await serve();
    const handle = server.runtime.startRun({
      runId: 'run-pay',
      model: scriptedModel([
        { text: 'Paying. ', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
        { firstTokenMs: 50, text: 'Paid five.' },
      ]),
      messages: user('Pay 5'),
      tools: { pay },
      toolApproval: { pay: 'user-approval' },
    });
    await handle.created;
    const tail = runCli(['tail', server.baseUrl, 'run-pay']);
    await waitFor(() => expect(tail.stdout()).toContain('Waiting for your approval'));
    const match = /\n\s+pay \(approval (\S+)\)\n/.exec(tail.stdout());
    expect(match).not.toBeNull();
    const client = createRunlightClient({ baseUrl: server.baseUrl });
    await client.answerApprovals('run-pay', [{ approvalId: match![1]!, approved: true }]);
    expect(await tail.exit).toBe(0);
    const words = tail.lines().map((line) => line.trim().replace(/^\S+\s+\+\S+ s {2}/, ''));
    const awaiting = words.indexOf('Waiting for your approval');
    expect(words.slice(awaiting + 2)).toContain('Writing the answer');
    expect(words.at(-1)).toBe('Completed');
  });
});
