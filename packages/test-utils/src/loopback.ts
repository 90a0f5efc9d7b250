import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A `node:http` server on 127.0.0.1 at a free port. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Ends every open connection (event streams included), then the server. */
  close(): Promise<void>;
}

/**
 * Serves `listener` on loopback (port 0) — the real HTTP a test's client talks to.
 *
 * @example
 * const { origin, close } = await listenOnLoopback(toNodeListener(router));
 */
export async function listenOnLoopback(listener: RequestListener): Promise<LoopbackServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The loopback servers of one test file, closed together (after each test).
 *
 * @example
 * const servers = loopbackServers();
 * afterEach(servers.closeAll);
 * const { origin } = await servers.listen(listener);
 */
export function loopbackServers() {
  const open: LoopbackServer[] = [];
  return {
    async listen(listener: RequestListener): Promise<LoopbackServer> {
      const server = await listenOnLoopback(listener);
      open.push(server);
      return server;
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((server) => server.close()));
    },
  };
}
