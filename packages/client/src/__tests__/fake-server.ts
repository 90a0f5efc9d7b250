import type { RunEvent, RunSnapshot } from '@runlight/protocol';

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
