import type { RunEvent, RunSnapshot } from '@runlight/protocol';
import { at, checkpoint, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { expect, vi } from 'vitest';
import { createRunlightClient, type RunlightClientOptions } from '../create-runlight-client';
import type { RunState } from '../merge/run-state';

/** One SSE connection the test drives by hand. */
export interface FakeConnection {
  lastEventId: string | null;
  send(text: string): void;
  end(): void;
  fail(): void;
  closed: boolean;
}

type EventsAnswer = { kind: 'stream' } | { kind: 'response'; response: Response };

/**
 * An injected `fetch` (the client's transport interface) answering the two run endpoints:
 * snapshots from `snapshot`, event streams the test writes to, or canned responses.
 */
export class FakeServer {
  snapshot: RunSnapshot & { serverTime?: string };
  readonly connections: FakeConnection[] = [];
  readonly requests: string[] = [];
  /** Answers for the next events requests, in order; a stream when empty. */
  readonly eventAnswers: EventsAnswer[] = [];
  snapshotLoads = 0;
  /** The `RequestInit` of every request, in order (headers, credentials). */
  readonly inits: RequestInit[] = [];
  snapshotAnswer: (() => Response) | null = null;

  constructor(snapshot: RunSnapshot) {
    this.snapshot = snapshot;
  }

  get last(): FakeConnection {
    return this.connections.at(-1)!;
  }

  fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    this.requests.push(url.pathname);
    this.inits.push(init ?? {});
    const headers = new Headers(init?.headers);
    if (!url.pathname.endsWith('/events')) {
      this.snapshotLoads++;
      if (this.snapshotAnswer) return this.snapshotAnswer();
      return Response.json(this.snapshot);
    }
    const answer = this.eventAnswers.shift() ?? { kind: 'stream' };
    if (answer.kind === 'response') return answer.response;
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const connection: FakeConnection = {
      lastEventId: headers.get('last-event-id'),
      closed: false,
      send: (text) => {
        if (!connection.closed) controller.enqueue(encoder.encode(text));
      },
      end: () => {
        if (connection.closed) return;
        connection.closed = true;
        controller.close();
      },
      fail: () => {
        if (connection.closed) return;
        connection.closed = true;
        controller.error(new TypeError('terminated'));
      },
    };
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        connection.closed = true;
      },
    });
    init?.signal?.addEventListener('abort', () => {
      if (connection.closed) return;
      connection.closed = true;
      controller.error(init.signal?.reason);
    });
    this.connections.push(connection);
    return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  };
}

/** One SSE message as the server formats it. */
export function sse(event: RunEvent, id?: string): string {
  const cursor =
    id ??
    (event.type === 'run-delta' ? `0:${event.baseRevision}:${event.seq}` : `${event.revision}`);
  return `event: ${event.type}\nid: ${cursor}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Generous on a loaded machine: waits are for events, not for speed. */
export const waitFor = <T>(check: () => T, options: { timeout?: number; interval?: number } = {}) =>
  vi.waitFor(check, { timeout: 10_000, interval: 5, ...options });

/** The run most client tests start from: revision 5, a model request started 90 s ago. */
export const startedRun = () =>
  snapshot(
    5,
    { lastOperation: modelRequestOperation('started', { startedAt: at(-90) }) },
    checkpoint(4),
  );

/** A client of `server` that reconnects within milliseconds, without jitter. */
export function fakeClient(server: FakeServer, options: Partial<RunlightClientOptions> = {}) {
  return createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server.fetch,
    reconnect: { initialDelayMs: 1, maxDelayMs: 4 },
    random: () => 0.5,
    ...options,
  });
}

/** Resolves once `store` is connected live. */
export const live = (store: { getState(): RunState }) =>
  waitFor(() => expect(store.getState().connection).toBe('live'));
