import type { RunOperationEvent } from '@runlight/protocol';
import {
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  snapshot,
  statusEvent,
} from '@runlight/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import { runHistoryOf } from '../history/run-history-of';
import { FakeServer, sse, waitFor } from './fake-server';

const op = (revision: number, step: number) =>
  operationEvent(revision, modelRequestOperation('started', { step }));

const settle = async () => {
  for (let round = 0; round < 10; round++) await new Promise((resolve) => setTimeout(resolve, 0));
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The fake run server plus an `/operations` route answering from `log`. */
function setup(
  log: RunOperationEvent[],
  revision: number,
  options: {
    headers?: () => HeadersInit;
    /** Answers a history request instead of the log when it returns a response. */
    gate?: (init: RequestInit | undefined) => Response | null;
  } = {},
) {
  const server = new FakeServer(snapshot(revision));
  const pages: number[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/operations')) {
      const refused = options.gate?.(init);
      if (refused) return refused;
      const after = Number(url.searchParams.get('after'));
      pages.push(after);
      const { revision } = server.snapshot;
      const operations = log.filter((e) => e.revision > after && e.revision <= revision);
      return Response.json({
        runId: RUN_ID,
        operations,
        nextAfter: null,
        revision: server.snapshot.revision,
      });
    }
    return server.fetch(input, init);
  };
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch,
    random: () => 0,
    ...(options.headers ? { headers: options.headers, credentials: 'include' as const } : {}),
  });
  return { server, pages, client };
}

describe('RunHistory', () => {
  it('asks with the client’s headers and credentials; a 401 is unauthorized until client.retry()', async () => {
    let token = 'expired';
    const seen: (string | null)[] = [];
    const credentials: (RequestCredentials | undefined)[] = [];
    const { client } = setup([op(2, 0), op(3, 0)], 3, {
      headers: () => ({ authorization: `Bearer ${token}` }),
      gate(init) {
        const headers = new Headers(init?.headers);
        seen.push(headers.get('authorization'));
        credentials.push(init?.credentials);
        expect(headers.get('accept')).toBe('application/json');
        return headers.get('authorization') === 'Bearer fresh'
          ? null
          : new Response(null, { status: 401 });
      },
    });
    const history = runHistoryOf(client, RUN_ID);
    cleanups.push(history.subscribe(() => {}));
    await settle();
    expect(history.getState().status).toBe('error');
    expect(history.getState().error?.kind).toBe('unauthorized');
    expect(seen).toEqual(['Bearer expired']);
    expect(credentials).toEqual(['include']);

    token = 'fresh';
    client.retry();
    await settle();
    expect(seen).toEqual(['Bearer expired', 'Bearer fresh']);
    expect(history.getState().status).toBe('ready');
    expect(history.getState().operations.map((e) => e.revision)).toEqual([2, 3]);
  });

  it('reads nothing until subscribed, then one page, then follows live events', async () => {
    const log = [op(2, 0), op(3, 0)];
    const { server, pages, client } = setup(log, 3);
    const history = runHistoryOf(client, RUN_ID);
    const unsubscribeStore = client.run(RUN_ID).subscribe(() => {});
    cleanups.push(unsubscribeStore);
    await settle();
    expect(pages).toEqual([]); // the store alone never reads the history

    cleanups.push(history.subscribe(() => {}));
    await settle();
    expect(pages).toEqual([0]);
    expect(history.getState().operations.map((e) => e.revision)).toEqual([2, 3]);

    server.last.send(sse(op(4, 1)) + sse(op(5, 1)));
    await settle();
    expect(history.getState().operations.map((e) => e.revision)).toEqual([2, 3, 4, 5]);
    expect(pages).toEqual([0]); // live events need no page
  });

  it('after a reset that skips revisions, reads the hole once; every operation once, in order', async () => {
    const log = [op(2, 0), op(3, 0), op(5, 1), op(6, 1)];
    const { server, pages, client } = setup(log, 3);
    const history = runHistoryOf(client, RUN_ID);
    cleanups.push(history.subscribe(() => {}));
    await settle();
    expect(pages).toEqual([0]);
    // The server moved on to 6 while the client was cut off; a reset makes it reload.
    server.snapshot = snapshot(6);
    server.last.send('event: reset\ndata: {"type":"reset","runId":"run-1","reason":"gone"}\n\n');
    // After the reload, the stream reopens (a backoff later) from the new state's cursor.
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.last.lastEventId).toBe('6');
    server.last.send(sse(statusEvent(7, 'running')));
    await waitFor(() =>
      expect(history.getState().operations.map((e) => e.revision)).toEqual([2, 3, 5, 6]),
    );
    await settle();
    expect(pages).toEqual([0, 3]);
  });
});
