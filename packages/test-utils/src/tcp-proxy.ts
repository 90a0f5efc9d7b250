import { createServer, type Server, Socket } from 'node:net';

/** One client connection through the proxy and its upstream connection. */
export interface ProxiedConnection {
  readonly id: number;
  /**
   * The upstream socket's local port: PostgreSQL's `pg_stat_activity.client_port` of the
   * backend serving this connection (null until the upstream connects).
   */
  readonly upstreamPort: number | null;
  readonly frozen: boolean;
  /** Stops forwarding both ways; what arrives meanwhile is held (a hung proxy, a partition). */
  freeze(): void;
  /** Forwards what was held, then everything again (the partition heals). */
  thaw(): void;
  /** Destroys both sides at once (a proxy's idle timeout, a reset). */
  drop(): void;
}

export interface TcpProxy {
  /** `127.0.0.1`; connect to `port` instead of the target's. */
  readonly host: string;
  readonly port: number;
  /** The connections open now, oldest first. */
  connections(): readonly ProxiedConnection[];
  /**
   * Freezes the connections `match` selects (all by default). With `newConnections: true`,
   * connections opened from now on are frozen too, until `thaw()`.
   */
  freeze(match?: (connection: ProxiedConnection) => boolean, newConnections?: boolean): void;
  /** Thaws every connection and stops freezing new ones. */
  thaw(): void;
  /** Drops the connections `match` selects (all by default). */
  drop(match?: (connection: ProxiedConnection) => boolean): void;
  /**
   * `true`: drops every connection and closes each new one at once (the server is down, as its
   * clients see it); `false`: accepts again (it is back).
   */
  refuse(down: boolean): void;
  /** Stops accepting and drops every connection. */
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `target` that a test controls: freeze a connection (bytes held, no
 * error, no close — a half-open socket or a hung proxy as its peers see it), thaw it, or drop
 * it. The shared PostgreSQL server is never touched; only the connections through the proxy.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * const pool = new pg.Pool({ ...config, host: proxy.host, port: proxy.port });
 * proxy.freeze((connection) => connection.upstreamPort === listenBackendPort);
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Connection>();
  let nextId = 1;
  let freezeNew = false;
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const connection = new Connection(nextId++, client, target, () => open.delete(connection));
    open.add(connection);
    if (freezeNew) connection.freeze();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  const select = (match?: (connection: ProxiedConnection) => boolean) =>
    [...open].filter((connection) => !match || match(connection));
  return {
    host: '127.0.0.1',
    port: address.port,
    connections: () => [...open],
    freeze(match, newConnections = false) {
      for (const connection of select(match)) connection.freeze();
      if (newConnections) freezeNew = true;
    },
    thaw() {
      freezeNew = false;
      for (const connection of open) connection.thaw();
    },
    drop(match) {
      for (const connection of select(match)) connection.drop();
    },
    refuse(down) {
      refusing = down;
      if (down) for (const connection of open) connection.drop();
    },
    async close() {
      for (const connection of open) connection.drop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

class Connection implements ProxiedConnection {
  readonly id: number;
  readonly #client: Socket;
  readonly #upstream: Socket;
  #frozen = false;
  /** Held while frozen: chunks for the upstream and for the client, in order. */
  #held: { to: Socket; chunk: Buffer }[] = [];

  constructor(
    id: number,
    client: Socket,
    target: { host: string; port: number },
    onClose: () => void,
  ) {
    this.id = id;
    this.#client = client;
    this.#upstream = new Socket();
    this.#upstream.connect(target.port, target.host);
    this.#forward(client, this.#upstream);
    this.#forward(this.#upstream, client);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      client.destroy();
      this.#upstream.destroy();
      onClose();
    };
    for (const socket of [client, this.#upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  }

  get upstreamPort(): number | null {
    return this.#upstream.localPort ?? null;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  #forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.#frozen) this.#held.push({ to, chunk });
      else to.write(chunk);
    });
  }

  freeze(): void {
    this.#frozen = true;
  }

  thaw(): void {
    if (!this.#frozen) return;
    this.#frozen = false;
    for (const { to, chunk } of this.#held.splice(0)) if (!to.destroyed) to.write(chunk);
  }

  drop(): void {
    this.#client.destroy();
    this.#upstream.destroy();
  }
}
