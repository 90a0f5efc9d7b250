/**
 * Live-delta throughput of the SSE event stream (`createRunHandlers().events`), in process:
 * publish a burst of deltas into the hub and read every encoded message off the Response body.
 *
 * Read the figures as ratios within one run:
 * - `baseline: format + encode` is the unavoidable work per delta (JSON, SSE framing, UTF-8);
 * - `baseline: + ReadableStream` adds a bare Web stream hop;
 * - `events stream` is the real handler: hub fan-out, dedupe, cursor, queue guard.
 * A 3,000 tokens/s model stream needs 3 bursts of 1,000 per second.
 * The fan-out group sends each burst to 10 clients of one run; its baseline serialises per client.
 *
 * Run: npx vitest bench --run --project runtime http-event-stream
 */
import type { RunDeltaEvent } from '@runlight/protocol';
import { bench, describe } from 'vitest';
import { RunEventHub } from '../src/events/event-hub';
import { publishingDriver, ScriptedRun } from '../src/http/__tests__/http-test-kit';
import { createRunHandlers } from '../src/http/create-run-handlers';
import { formatSseMessage } from '../src/http/streams/format-sse-message';
import { createAgentRuntimeStore } from '../src/store/agent-runtime-store';
import { createMemoryDriver } from '../src/store/driver/memory-driver';

const BURST = 1_000;
const TOKEN = 'token ';
const encoder = new TextEncoder();

function delta(seq: number): RunDeltaEvent {
  return {
    type: 'run-delta',
    runId: 'run-1',
    baseRevision: 2,
    seq,
    chunk: { type: 'text-delta', id: 'text-1', delta: TOKEN },
  };
}

/** Reads until `count` SSE messages arrived (one chunk per message here). */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, count: number) {
  for (let seen = 0; seen < count; ) {
    const { done } = await reader.read();
    if (done) throw new Error('stream ended');
    seen++;
  }
}

const hub = new RunEventHub();
const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
const run = await ScriptedRun.start({ store, hub }, 'run-1');
await run.checkpoint(); // revision 3: deltas build on it
const handlers = createRunHandlers({
  store,
  runtime: hub,
  authorize: 'public',
  maxQueuedBytes: 64 * 1024 * 1024,
});
const response = await handlers.events(
  new Request('http://bench/runs/run-1/events?after=3'),
  'run-1',
);
const eventsReader = response.body!.getReader();
await new Promise((resolve) => setImmediate(resolve));

let plainSeq = 0;
let pipeController!: ReadableStreamDefaultController<Uint8Array>;
const pipeReader = new ReadableStream<Uint8Array>({
  start: (controller) => {
    pipeController = controller;
  },
}).getReader();

describe(`SSE live deltas, bursts of ${BURST}`, () => {
  bench('baseline: format + encode', () => {
    for (let i = 0; i < BURST; i++) {
      const event = delta(++plainSeq);
      encoder.encode(formatSseMessage(event.type, `3:3:${event.seq}`, JSON.stringify(event)));
    }
  });

  bench('baseline: + ReadableStream', async () => {
    for (let i = 0; i < BURST; i++) {
      const event = delta(++plainSeq);
      pipeController.enqueue(
        encoder.encode(formatSseMessage(event.type, `3:3:${event.seq}`, JSON.stringify(event))),
      );
    }
    await drain(pipeReader, BURST);
  });

  bench('events stream (hub → handler → body)', async () => {
    for (let i = 0; i < BURST; i++) run.delta(TOKEN);
    await drain(eventsReader, BURST);
  });
});

const FAN_OUT = 10;
const fanRun = await ScriptedRun.start({ store, hub }, 'run-2');
await fanRun.checkpoint();
const fanReaders = await Promise.all(
  Array.from({ length: FAN_OUT }, async () => {
    const fan = await handlers.events(
      new Request('http://bench/runs/run-2/events?after=3'),
      'run-2',
    );
    return fan.body!.getReader();
  }),
);
await new Promise((resolve) => setImmediate(resolve));
const pipes = Array.from({ length: FAN_OUT }, () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const reader = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  }).getReader();
  return { controller, reader };
});

describe(`SSE live deltas to ${FAN_OUT} clients, bursts of ${BURST}`, () => {
  bench('baseline: per-client format + encode + ReadableStream', async () => {
    for (let i = 0; i < BURST; i++) {
      const event = delta(++plainSeq);
      for (const pipe of pipes) {
        pipe.controller.enqueue(
          encoder.encode(formatSseMessage(event.type, `3:3:${event.seq}`, JSON.stringify(event))),
        );
      }
    }
    await Promise.all(pipes.map((pipe) => drain(pipe.reader, BURST)));
  });

  bench('events stream (JSON shared across clients)', async () => {
    for (let i = 0; i < BURST; i++) fanRun.delta(TOKEN);
    await Promise.all(fanReaders.map((reader) => drain(reader, BURST)));
  });
});
