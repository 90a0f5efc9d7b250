import { createClient, type RedisClientOptions } from 'redis';

/** What the bus needs of one node-redis connection. */
export interface RedisConnection {
  /** One command, its raw RESP2 reply. */
  command<T>(args: readonly string[]): Promise<T>;
  /** Hears each socket error (the client reconnects by itself, with backoff). */
  onLoss(listener: (error: unknown) => void): void;
  /** Resolves once connected; retries until then (or `destroy`). */
  connect(): Promise<void>;
  /** Sends what is queued, then closes; a connection that is not up is destroyed instead. */
  close(): Promise<void>;
  /** Closes at once; what is queued fails. */
  destroy(): void;
}

export interface RedisConnectionOptions {
  /** `redis://host:port/db`; the client options may carry a socket, a password, TLS. */
  url: string | undefined;
  clientOptions: RedisClientOptions | undefined;
  /**
   * Queue commands while reconnecting (the sending connection: a short outage delays deltas
   * instead of dropping them) or fail them at once (the reading one: it retries by itself).
   */
  offlineQueue: boolean;
  /** Commands queued at most; past it a command fails (reported, dropped). */
  maxQueued: number;
}

const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 2_000;

/**
 * A node-redis client with an `'error'` listener from its creation on: without one, a dropped
 * socket (a Redis restart, a failover, a proxy's idle timeout) would be an unhandled `'error'`
 * event and end the process. Replies are RESP2 arrays, parsed by the bus.
 */
export function openRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const client = createClient({
    ...options.clientOptions,
    ...(options.url === undefined ? {} : { url: options.url }),
    RESP: 2,
    disableOfflineQueue: !options.offlineQueue,
    commandsQueueMaxLength: options.maxQueued,
    socket: {
      ...options.clientOptions?.socket,
      keepAlive: true,
      reconnectStrategy: (retries: number) =>
        Math.min(FIRST_RETRY_MS * 2 ** Math.min(retries, 10), MAX_RETRY_MS),
    },
    // RESP2 on purpose: the bus reads its replies as flat arrays.
  } as unknown as RedisClientOptions);
  const listeners = new Set<(error: unknown) => void>();
  client.on('error', (error: unknown) => {
    for (const listener of listeners) listener(error);
  });
  return {
    command: <T>(args: readonly string[]) => client.sendCommand(args) as Promise<T>,
    onLoss(listener) {
      listeners.add(listener);
    },
    async connect() {
      await client.connect();
    },
    async close() {
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
    destroy() {
      if (client.isOpen) client.destroy();
    },
  };
}
