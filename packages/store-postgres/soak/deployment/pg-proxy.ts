import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of PostgreSQL, so the soak can take the database away from the
 * deployment without touching the server other tests share: `cut()` resets every connection
 * (what a server restart or a failover does to its clients), `refuse(ms)` also turns new ones
 * away for a while (the outage).
 */
export interface PgProxy {
  /** The port the deployment's connection strings name. */
  readonly port: number;
  /** Connections through the proxy now. */
  readonly connections: number;
  /** Resets every connection at once (both sides). */
  cut(): void;
  /** Resets every connection and refuses new ones for `ms` (resolves when it accepts again). */
  refuse(ms: number): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
}

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  const server: Server = createServer((client) => {
    client.on('error', () => {});
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connectUpstream(target);
    const pair = { client, server: upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cut = () => {
    for (const pair of [...pairs]) {
      pair.client.resetAndDestroy();
      pair.server.resetAndDestroy();
    }
    pairs.clear();
  };
  return {
    port,
    get connections() {
      return pairs.size;
    },
    cut,
    async refuse(ms) {
      refusing = true;
      cut();
      await new Promise((resolve) => setTimeout(resolve, ms));
      refusing = false;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function connectUpstream(target: { host: string; port: number }): Socket {
  const socket = connect(target.port, target.host);
  socket.on('error', () => {});
  return socket;
}
