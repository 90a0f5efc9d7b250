import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { RunDeltaEvent } from '@runlight/protocol';
import { describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { type SseNodeSink, SseOutput, sseMessageBytes } from '../streams/sse-output';
import { listen, publishingDriver, ScriptedRun } from './http-test-kit';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunk: Uint8Array) => new TextDecoder().decode(chunk);
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

function fakeSink() {
  const writes: string[] = [];
  const sink: SseNodeSink & { ended: boolean } = {
    ended: false,
    destroyed: false,
    writableLength: 0,
    write: (chunk) => {
      writes.push(text(chunk));
      return true;
    },
    end: () => {
      sink.ended = true;
    },
    destroy: () => {
      (sink as { destroyed: boolean }).destroyed = true;
    },
  };
  return { sink, writes };
}

describe('SseOutput: one write per task', () => {
  it('sends the messages written in one task as one chunk, a later task’s as the next', async () => {
    const output = new SseOutput({ onCancel: () => {} });
    const reader = output.readable.getReader();
    output.write(bytes('a\n\n'));
    output.write(bytes('b\n\n'));
    output.write(bytes('c\n\n'));
    expect(output.unreadBytes()).toBe(9); // counted before the flush, for the cap
    expect(text((await reader.read()).value!)).toBe('a\n\nb\n\nc\n\n');
    await nextTask();
    output.write(bytes('d\n\n'));
    output.close();
    expect(text((await reader.read()).value!)).toBe('d\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('writes straight to an attached node response, one write per task, and ends it', async () => {
    const output = new SseOutput({ onCancel: () => {} });
    const { sink, writes } = fakeSink();
    const attached = output.attach(sink)!;
    expect(attached).not.toBeNull();
    output.write(bytes('a\n\n'));
    output.write(bytes('b\n\n'));
    await nextTask();
    output.write(bytes('c\n\n'));
    output.close();
    await attached.finished;
    expect(writes).toEqual(['a\n\nb\n\n', 'c\n\n']);
    expect(sink.ended).toBe(true);
  });

  it('writes a lone message’s shared bytes as they are (no copy per client)', async () => {
    const message = bytes('shared\n\n');
    const seen: Uint8Array[] = [];
    const sink = { ...fakeSink().sink, write: (chunk: Uint8Array) => seen.push(chunk) > 0 };
    const a = new SseOutput({ onCancel: () => {} });
    const b = new SseOutput({ onCancel: () => {} });
    a.attach(sink);
    b.attach(sink);
    a.write(message);
    b.write(message);
    await nextTask();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(message);
    expect(seen[1]).toBe(message);
  });

  it('is not attached once its Web stream carried bytes (the host reads it instead)', async () => {
    const output = new SseOutput({ onCancel: () => {} });
    output.write(bytes('a\n\n'));
    await nextTask();
    expect(output.attach(fakeSink().sink)).toBeNull();
  });

  it('drops unflushed bytes and destroys the response on error; cancel reaches the owner', async () => {
    const onCancel = vi.fn();
    const output = new SseOutput({ onCancel });
    const { sink, writes } = fakeSink();
    const attached = output.attach(sink)!;
    output.write(bytes('lost\n\n'));
    output.error(new Error('not reading'));
    await attached.finished;
    await nextTask();
    expect(writes).toEqual([]);
    expect(sink.destroyed).toBe(true);

    const other = new SseOutput({ onCancel });
    other.attach(fakeSink().sink)!.cancel();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });
});

describe('sseMessageBytes', () => {
  const delta: RunDeltaEvent = {
    type: 'run-delta',
    runId: 'run-1',
    baseRevision: 3,
    seq: 1,
    chunk: { type: 'text-delta', id: 't', delta: 'Hi' },
  };

  it('encodes an event once per cursor: clients at the same cursor share the bytes', () => {
    const first = sseMessageBytes(delta, '3:3:1');
    expect(sseMessageBytes(delta, '3:3:1')).toBe(first);
    expect(text(first)).toBe(`event: run-delta\nid: 3:3:1\ndata: ${JSON.stringify(delta)}\n\n`);
    const other = sseMessageBytes(delta, '4:3:1');
    expect(text(other)).toBe(`event: run-delta\nid: 4:3:1\ndata: ${JSON.stringify(delta)}\n\n`);
    expect(text(first)).toContain('id: 3:3:1'); // bytes handed out are never changed
  });
});

describe('events over node:http (the direct path)', () => {
  async function fixture(options: { maxQueuedBytes?: number } = {}) {
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
    const run = await ScriptedRun.start({ store, hub }, 'run-1');
    const handlers = createRunHandlers({ store, runtime: hub, ...options });
    const server = await listen(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
    return { hub, run, server };
  }

  it('delivers a burst published in one task in order, in one HTTP chunk', async () => {
    const { hub, run, server } = await fixture();
    try {
      const chunks: string[] = [];
      const url = new URL(`${server.origin}/runs/run-1/events?after=2`);
      const request = httpRequest(url);
      const response = await new Promise<import('node:http').IncomingMessage>((resolve) => {
        request.on('response', resolve);
        request.end();
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => chunks.push(chunk));
      await vi.waitFor(() => expect(hub.listenerCount('run-1')).toBe(1));
      // The opening comment went out with the headers, before anything was published.
      await vi.waitFor(() => expect(chunks).toEqual([': open\n\n']));
      chunks.length = 0;
      await nextTask();
      for (let i = 0; i < 20; i++) run.delta(`w${i} `);
      await vi.waitFor(() => expect(chunks.join('')).toContain('id: 2:0:20\n'));
      const ids = [...chunks.join('').matchAll(/^id: (.*)$/gm)].map((match) => match[1]);
      expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `2:0:${i + 1}`));
      expect(chunks).toHaveLength(1);
      request.destroy();
      await vi.waitFor(() => expect(hub.listenerCount('run-1')).toBe(0));
    } finally {
      await server.close();
    }
  });

  it('drops a client that stops reading once the response holds more than the cap', async () => {
    const { hub, run, server } = await fixture({ maxQueuedBytes: 64 * 1024 });
    const { port } = new URL(server.origin);
    const socket = connect(Number(port), '127.0.0.1');
    try {
      socket.write(`GET /runs/run-1/events?after=2 HTTP/1.1\r\nHost: x\r\n\r\n`);
      socket.pause(); // never reads: the kernel buffers fill, then the response's
      await vi.waitFor(() => expect(hub.listenerCount('run-1')).toBe(1));
      const word = 'y'.repeat(1_000);
      for (let round = 0; round < 200 && hub.listenerCount('run-1') > 0; round++) {
        for (let i = 0; i < 100; i++) run.delta(word);
        await nextTask();
      }
      expect(hub.listenerCount('run-1')).toBe(0);
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
