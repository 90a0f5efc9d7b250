import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen, publishingDriver } from './http-test-kit';

/**
 * Issue 48: under Next.js a route handler's headers wait for the body's first chunk, so the
 * stream of an idle run (waiting for approval) answered only at the first heartbeat, 15 s
 * later — the page read `connecting` while holding one of the browser's six sockets. Every
 * event stream now writes a first byte (`: open`) the moment its response is made.
 *
 * The heartbeat is an hour here, and the run is idle at the cursor the client holds: nothing
 * but the opening can arrive. The read is raced against the next macrotask (not a duration):
 * the bytes are queued before the handler returns, so they are there at once on any machine.
 */
const HOUR = 3_600_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function idleRun() {
  const hub = new RunEventHub();
  const { driver } = publishingDriver(createMemoryDriver(), hub);
  const store = createAgentRuntimeStore(driver);
  await store.createRun({ runId: 'run-1' });
  const { revision } = await store.getSnapshot('run-1');
  const handlers = createRunHandlers({ store, runtime: hub, heartbeatMs: HOUR });
  const multiplex = createMultiplexHandlers({
    store,
    runtime: hub,
    heartbeatMs: HOUR,
    onError: () => {},
  });
  const router = createRunRouter({ handlers, multiplex, basePath: '/api', authorize: 'public' });
  return { router, revision };
}

/** The first chunk of `body`, or `'nothing yet'` if none is there by the next macrotask. */
async function firstChunkAtOnce(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const first = await Promise.race([
    reader.read().then(({ value }) => new TextDecoder().decode(value)),
    nextMacrotask()
      .then(() => nextMacrotask())
      .then(() => 'nothing yet'),
  ]);
  await reader.cancel();
  return first;
}

describe('event streams open with a first byte on every host', () => {
  it('a Web handler (Next.js route handlers, Hono) gets ": open" before any event or heartbeat', async () => {
    const { router, revision } = await idleRun();
    const response = await router(
      new Request('http://app.test/api/runs/run-1/events', {
        headers: { 'last-event-id': `${revision}` },
      }),
    );
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await firstChunkAtOnce(response!.body!)).toBe(': open\n\n');
  });

  it('the multiplexed stream opens the same way, once for all its runs', async () => {
    const { router, revision } = await idleRun();
    const response = await router(
      new Request(`http://app.test/api/run-events?run=${encodeURIComponent(`run-1@${revision}`)}`),
    );
    expect(response?.status).toBe(200);
    const text = await firstChunkAtOnce(response!.body!);
    expect(text.startsWith(': open\n\n')).toBe(true);
    expect(text.split(': open').length - 1).toBe(1);
  });

  it('over node:http (toNodeListener) the headers and the first byte go out at once', async () => {
    const { router, revision } = await idleRun();
    const server = await listen(toNodeListener(router));
    cleanups.push(server.close);
    const abort = new AbortController();
    const response = await fetch(`${server.origin}/api/runs/run-1/events`, {
      headers: { 'last-event-id': `${revision}` },
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe(': open\n\n');
    abort.abort();
  });
});
