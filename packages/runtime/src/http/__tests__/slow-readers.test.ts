import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { publishingDriver, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MiB = 1024 * 1024;

/** A client that sends the request and then never reads a byte. */
function silentReader(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('GET /api/runs/run-1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      socket.pause();
      const closed = new Promise<void>((done) => socket.once('close', () => done()));
      resolve({ socket, closed });
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

describe('slow readers across clients', () => {
  it('keeps 40 silent readers under the global cap and closes the dropped ones at once', async () => {
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
    const run = await ScriptedRun.start({ store, hub }, 'run-1');
    const cap = 8 * MiB;
    // Each client alone stays under its own 8 MiB: only the shared cap can drop them.
    const handlers = createRunHandlers({ store, runtime: hub, maxBufferedBytes: cap });
    const serverSockets: Socket[] = [];
    const server: Server = createServer(
      toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
    );
    server.on('connection', (socket) => serverSockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as AddressInfo;

    const clients = await Promise.all(Array.from({ length: 40 }, () => silentReader(port)));
    cleanups.push(() => {
      for (const client of clients) client.socket.destroy();
    });
    await vi.waitFor(() => expect(hub.listenerCount('run-1')).toBe(40));

    // 4 MiB for every client: 160 MiB in all without a shared cap.
    const delta = 'x'.repeat(16 * 1024);
    let peak = 0;
    for (let i = 0; i < 256; i++) {
      run.delta(delta);
      peak = Math.max(peak, handlers.bufferedBytes());
      if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // At most one stream's high-water mark plus one event of slack per client above the cap.
    expect(peak).toBeLessThanOrEqual(cap + 40 * (64 + 17) * 1024);
    const dropped = 40 - hub.listenerCount('run-1');
    // Alone, none would be dropped (each got 4 MiB < its own 8 MiB); together they must be.
    expect(dropped).toBeGreaterThan(0);
    // Every dropped client's socket is destroyed on the server at once (no drain wait).
    await vi.waitFor(() =>
      expect(serverSockets.filter((socket) => socket.destroyed)).toHaveLength(dropped),
    );
    // And the clients see their connection end once they read what reached them.
    for (const client of clients) client.socket.resume();
    let ended = 0;
    for (const client of clients) void client.closed.then(() => ended++);
    await vi.waitFor(() => expect(ended).toBe(dropped), { timeout: 60_000, interval: 20 });
    // The others are still served: their streams are still listening to the run.
    expect(hub.listenerCount('run-1')).toBe(40 - dropped);
    expect(handlers.bufferedBytes()).toBeLessThanOrEqual(cap);
  });

  it('drops a client that reads nothing for idleTimeoutMs while bytes wait for it', async () => {
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
    const run = await ScriptedRun.start({ store, hub }, 'run-1');
    const handlers = createRunHandlers({
      store,
      runtime: hub,
      authorize: 'public',
      heartbeatMs: 20,
      idleTimeoutMs: 100,
    });
    const response = await handlers.events(
      new Request('http://test/runs/run-1/events?after=2'),
      'run-1',
    );
    await new Promise((resolve) => setImmediate(resolve));
    run.delta('z'.repeat(128 * 1024)); // more than the stream's 64 KiB high-water mark
    await vi.waitFor(() => expect(hub.listenerCount('run-1')).toBe(0), { timeout: 30_000 });
    const reader = response.body!.getReader();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow(/read nothing for 100 ms/);
    expect(handlers.bufferedBytes()).toBe(0);
  });
});
