import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { jsonSchema, tool } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import { RunlightClientError } from '../errors/runlight-client-error';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';

const waitFor = <T>(check: () => T | Promise<T>) =>
  vi.waitFor(check, { timeout: 30_000, interval: 10 });

const pay = tool({
  description: 'Pays an amount',
  inputSchema: jsonSchema<{ amount: number }>({
    type: 'object',
    properties: { amount: { type: 'number' } },
    required: ['amount'],
  }),
  execute: async ({ amount }) => ({ paid: amount }),
});

const servers = loopbackServers();
afterEach(servers.closeAll);

/** The real runtime and the library's routes on loopback, behind a bearer token. */
async function serve() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, owner: 'worker-a', onLog: () => {} });
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({
        store,
        runtime,
        authorize: ({ request }) =>
          request.headers.get('authorization') === 'Bearer secret'
            ? true
            : new Response(null, { status: 401 }),
      }),
      basePath: '/api',
      authorize: 'public',
    }),
  );
  const { origin } = await servers.listen(listener);
  const requests: string[] = [];
  const client = (token = 'secret') =>
    createRunlightClient({
      baseUrl: `${origin}/api`,
      headers: () => ({ authorization: `Bearer ${token}` }),
      fetch: (input, init) => {
        if (init?.method === 'POST') requests.push(String(input).replace(/^.*\/api/, ''));
        return globalThis.fetch(input, init);
      },
    });
  return { store, runtime, client, requests };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => {
      if (!RunlightClientError.isInstance(error)) throw error;
      return { kind: error.kind, status: error.status, code: error.code, field: error.field };
    },
  );

describe('client.cancel and client.answerApprovals on the library’s control routes', () => {
  it('cancels a streaming run: accepted, and the end arrives on its store', async () => {
    const { runtime, client } = await serve();
    const handle = runtime.startRun({
      runId: 'long-answer',
      model: scriptedModel([{ firstTokenMs: 10, tokenMs: 20, text: 'word '.repeat(200) }]),
      messages: [{ role: 'user', content: 'Talk' }],
    });
    await handle.created;
    const runlight = client();
    const store = runlight.run('long-answer');
    const unsubscribe = store.subscribe(() => {});
    await waitFor(() => expect(selectActivity(store.getState()).kind).toBe('streaming'));
    await runlight.cancel('long-answer');
    expect((await handle.done).status).toBe('cancelled');
    await waitFor(() => expect(store.getState().run?.status).toBe('cancelled'));
    unsubscribe();
  });

  it('answers the approval a paused run waits for; the run resumes and completes', async () => {
    const { runtime, client, requests } = await serve();
    const first = runtime.startRun({
      runId: 'pay-5',
      model: scriptedModel([
        { text: 'Paying. ', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
        { text: 'Paid five.' },
      ]),
      messages: [{ role: 'user', content: 'Pay 5' }],
      tools: { pay },
      toolApproval: { pay: 'user-approval' },
    });
    await first.done;
    const runlight = client();
    const store = runlight.run('pay-5');
    const unsubscribe = store.subscribe(() => {});
    await waitFor(() => expect(selectActivity(store.getState()).kind).toBe('awaiting-approval'));
    const part = selectMessage(store.getState())?.parts.find((p) => p.type === 'tool-pay') as
      | { approval?: { id: string } }
      | undefined;
    const approvalId = part?.approval?.id;
    expect(approvalId).toBeTruthy();

    await runlight.answerApprovals('pay-5', [{ approvalId: approvalId!, approved: true }]);
    expect(requests).toEqual(['/runs/pay-5/approvals']);
    await waitFor(() => expect(store.getState().run?.status).toBe('completed'));
    const text = selectMessage(store.getState())
      ?.parts.map((p) => (p.type === 'text' ? p.text : ''))
      .join('');
    expect(text).toBe('Paying. Paid five.');

    // The run ended: a second answer is refused with the server's code.
    expect(
      await failure(
        runlight.answerApprovals('pay-5', [{ approvalId: approvalId!, approved: true }]),
      ),
    ).toMatchObject({ kind: 'http', status: 409, code: 'run_ended' });
    unsubscribe();
  });

  it('refuses bad input before sending, and types what the server refuses', async () => {
    const { client, requests, runtime } = await serve();
    const runlight = client();
    expect(await failure(runlight.answerApprovals('any-run', []))).toMatchObject({
      kind: 'invalid-request',
      field: 'approvals',
    });
    expect(
      await failure(
        runlight.answerApprovals('any-run', [{ approvalId: '', approved: true }] as never),
      ),
    ).toMatchObject({ kind: 'invalid-request', field: 'approvals.0.approvalId' });
    // The server's own rules (one schema in the protocol): each id once, bounded lengths.
    const twice = { approvalId: 'a-1', approved: true };
    expect(await failure(runlight.answerApprovals('any-run', [twice, twice]))).toMatchObject({
      kind: 'invalid-request',
      field: 'approvals',
    });
    expect(
      await failure(runlight.answerApprovals('any-run', [{ ...twice, reason: 'r'.repeat(2_001) }])),
    ).toMatchObject({ kind: 'invalid-request', field: 'approvals.0.reason' });
    expect(await failure(runlight.cancel('../runs'))).toMatchObject({
      kind: 'invalid-request',
      field: 'runId',
    });
    expect(requests).toEqual([]);

    expect(await failure(runlight.cancel('no-such-run'))).toMatchObject({
      kind: 'run-not-found',
      status: 404,
    });
    const handle = runtime.startRun({
      runId: 'quick',
      model: scriptedModel([{ text: 'Done.' }]),
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await handle.done;
    expect(await failure(client('expired').cancel('quick'))).toMatchObject({
      kind: 'unauthorized',
      status: 401,
    });
  });
});
