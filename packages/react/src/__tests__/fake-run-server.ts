import type { RunEvent, RunOperationEvent, RunSnapshot } from '@runlight/protocol';

/**
 * An injected transport for `createRunlightClient({ fetch })`: answers `GET …/runs/:id` with
 * the current snapshot body and `GET …/runs/:id/events` with an SSE stream the test writes
 * real SSE text into. Counts requests of each kind; no global `fetch` is touched.
 */
export interface FakeRunServer {
  readonly fetch: typeof globalThis.fetch;
  /** Requests of the snapshot URL / the events URL so far. */
  readonly requests: { snapshot: number; events: number };
  /** Event streams not yet closed by either side. */
  openStreams(): number;
  /** The next snapshot answers: a JSON body, raw text, or an HTTP status with no body. */
  setSnapshot(answer: SnapshotAnswer): void;
  /** Writes one event, as the server would encode it, into the newest open stream. */
  send(event: RunEvent): void;
  /** Writes raw SSE text into the newest open stream. */
  sendRaw(text: string): void;
  /** The server ends the newest stream (a drop, or the end of a run). */
  end(): void;
}

export type SnapshotAnswer = { json: unknown } | { text: string } | { status: number };

const encoder = new TextEncoder();

export function fakeRunServer(initial: SnapshotAnswer): FakeRunServer {
  let answer = initial;
  const requests = { snapshot: 0, events: 0 };
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const close = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const index = streams.indexOf(controller);
    if (index === -1) return;
    streams.splice(index, 1);
    try {
      controller.close();
    } catch {
      // Already cancelled by the reader.
    }
  };
  const newest = () => {
    const controller = streams.at(-1);
    if (controller === undefined) throw new Error('no open event stream');
    return controller;
  };

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/events')) {
      requests.events++;
      let own: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          own = controller;
          streams.push(controller);
        },
        cancel() {
          const index = own === undefined ? -1 : streams.indexOf(own);
          if (index !== -1) streams.splice(index, 1);
        },
      });
      init?.signal?.addEventListener('abort', () => own && close(own));
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    }
    requests.snapshot++;
    if ('status' in answer) return new Response(null, { status: answer.status });
    const text = 'text' in answer ? answer.text : JSON.stringify(answer.json);
    return new Response(text, { headers: { 'content-type': 'application/json' } });
  };

  return {
    fetch,
    requests,
    openStreams: () => streams.length,
    setSnapshot(next) {
      answer = next;
    },
    send(event) {
      const id = event.type === 'run-delta' ? undefined : `${event.revision}`;
      const lines = [
        `event: ${event.type}`,
        ...(id ? [`id: ${id}`] : []),
        `data: ${JSON.stringify(event)}`,
      ];
      newest().enqueue(encoder.encode(`${lines.join('\n')}\n\n`));
    },
    sendRaw(text) {
      newest().enqueue(encoder.encode(text));
    },
    end() {
      close(newest());
    },
  };
}

/**
 * A fake run server that also answers `GET …/runs/:id/operations` with the whole history of
 * `run` in one page: what the timeline tests and benches render.
 *
 * @example
 * const server = fakeRunServerWithHistory(timelineHistory(500));
 * const client = createRunlightClient({ baseUrl: 'http://x/api', fetch: server.fetch });
 */
export function fakeRunServerWithHistory(run: {
  runId: string;
  events: readonly RunOperationEvent[];
  snapshot: RunSnapshot;
}): FakeRunServer {
  const server = fakeRunServer({ json: run.snapshot });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (!String(input instanceof Request ? input.url : input).includes('/operations')) {
      return server.fetch(input, init);
    }
    const { runId, events, snapshot } = run;
    return Response.json({
      runId,
      operations: events,
      nextAfter: null,
      revision: snapshot.revision,
    });
  };
  return { ...server, fetch };
}
