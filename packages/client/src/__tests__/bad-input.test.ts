import { modelRequestOperation, operationEvent, snapshot, textDelta } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { RunlightClientError } from '../errors/runlight-client-error';
import type { RunState } from '../merge/run-state';
import { FakeServer, fakeClient, sse, startedRun, waitFor } from './fake-server';

/**
 * SPEC.md rule 4, one test per kind of bad input: the error is typed and says what and where,
 * the last good state stays (same durable objects), and the connection goes on — the next
 * good message still applies, or a new connection goes live.
 */
async function liveStore() {
  const server = new FakeServer(startedRun());
  const client = fakeClient(server, {
    baseUrl: 'http://runlight.test',
    reconnect: { initialDelayMs: 1, maxDelayMs: 2 },
  });
  const store = client.run('run-1');
  const errors: RunlightClientError[] = [];
  const unsubscribe = store.subscribe(() => {
    const { error } = store.getState();
    if (error !== null && errors.at(-1) !== error) errors.push(error);
  });
  await waitFor(() => expect(store.getState().connection).toBe('live'));
  return { server, store, unsubscribe, errors, good: store.getState() };
}

function expectKept(state: RunState, good: RunState) {
  expect(state.run).toBe(good.run);
  expect(state.assistant).toBe(good.assistant);
  expect(state.revision).toBe(good.revision);
}

/** Sends a bad message, then a good one: the good one must still apply. */
async function badMessage(text: string) {
  const { server, store, unsubscribe, good } = await liveStore();
  server.last.send(text);
  await waitFor(() => expect(store.getState().error).not.toBeNull());
  const error = store.getState().error!;
  expect(RunlightClientError.isInstance(error)).toBe(true);
  expectKept(store.getState(), good);
  server.last.send(sse(operationEvent(6, modelRequestOperation('first-output'))));
  await waitFor(() => expect(store.getState().revision).toBe(6));
  unsubscribe();
  return error;
}

/** Answers the next events request badly, then drops the live one: a later attempt goes live. */
async function badResponse(response: Response) {
  const { server, store, unsubscribe, errors, good } = await liveStore();
  server.eventAnswers.push({ kind: 'response', response });
  server.last.fail();
  await waitFor(() => expect(server.connections).toHaveLength(2));
  // The drop itself is a network error; the bad answer to the first reconnect comes next.
  expect(errors.map((error) => error.kind)[0]).toBe('network');
  const error = errors[1]!;
  expect(RunlightClientError.isInstance(error)).toBe(true);
  expectKept(store.getState(), good);
  await waitFor(() => expect(store.getState().connection).toBe('live'));
  expect(store.getState().error).toBeNull();
  unsubscribe();
  return error;
}

describe('bad input', () => {
  it('a reset order without its run → invalid-event naming the field, no reload', async () => {
    const error = await badMessage('event: reset\ndata: {"type":"reset","reason":"gone"}\n\n');
    expect(error).toMatchObject({ kind: 'invalid-event', field: 'runId' });
  });

  it("another run's reset order → run-mismatch", async () => {
    const error = await badMessage(
      'event: reset\ndata: {"type":"reset","runId":"run-2","reason":"gone"}\n\n',
    );
    expect(error).toMatchObject({ kind: 'run-mismatch', field: 'runId' });
  });

  it('truncated JSON → malformed-json on the data field', async () => {
    const text = sse(operationEvent(6, modelRequestOperation('first-output')));
    const cut = `${text.slice(0, text.indexOf('"operation"'))}\n\n`;
    const error = await badMessage(cut);
    expect(error).toMatchObject({ kind: 'malformed-json', field: 'data' });
  });

  it('unknown event type → unknown-event', async () => {
    const error = await badMessage('event: run-exploded\nid: 6\ndata: {}\n\n');
    expect(error).toMatchObject({ kind: 'unknown-event', field: 'event' });
    expect(error.message).toContain('run-exploded');
  });

  it('a field of the wrong type → invalid-event naming the field', async () => {
    const event = { ...textDelta(4, 1, 'x'), seq: 'one' };
    const error = await badMessage(
      `event: run-delta\nid: 5:4:1\ndata: ${JSON.stringify(event)}\n\n`,
    );
    expect(error).toMatchObject({ kind: 'invalid-event', field: 'seq' });
  });

  it('a revision going backwards on one connection → revision-backwards', async () => {
    const { server, store, unsubscribe, good } = await liveStore();
    server.last.send(sse(operationEvent(7, modelRequestOperation('completed'))));
    await waitFor(() => expect(store.getState().phase).toBe('gap'));
    server.last.send(sse(operationEvent(6, modelRequestOperation('first-output'))));
    await waitFor(() => expect(store.getState().error?.kind).toBe('revision-backwards'));
    expect(store.getState().error?.field).toBe('revision');
    expect(store.getState().run).toBe(good.run);
    unsubscribe();
  });

  it('HTTP 500 → http error with the status, reconnect continues', async () => {
    const error = await badResponse(
      Response.json({ error: { code: 'internal', message: 'x' } }, { status: 500 }),
    );
    expect(error).toMatchObject({ kind: 'http', status: 500 });
  });

  it('a non-SSE content type → content-type error, reconnect continues', async () => {
    const error = await badResponse(
      new Response('<html></html>', { headers: { 'content-type': 'text/html' } }),
    );
    expect(error).toMatchObject({ kind: 'content-type', field: 'content-type' });
    expect(error.message).toContain('text/html');
  });

  it('an invalid snapshot → invalid-snapshot, the last good state stays', async () => {
    const { store, unsubscribe, good } = await liveStore();
    expect(
      store.applySnapshot({ ...snapshot(9), run: { ...snapshot(9).run, status: 'exploded' } }),
    ).toBe(false);
    expect(store.getState().error).toMatchObject({ kind: 'invalid-snapshot', field: 'run.status' });
    expectKept(store.getState(), good);
    unsubscribe();
  });

  it('an event of another run → run-mismatch', async () => {
    const error = await badMessage(
      sse({ ...operationEvent(6, modelRequestOperation('first-output')), runId: 'run-2' }),
    );
    expect(error).toMatchObject({ kind: 'run-mismatch', field: 'runId' });
  });
});
