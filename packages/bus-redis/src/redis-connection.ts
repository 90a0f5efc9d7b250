import { createClient, type RedisClientOptions } from 'redis';

/** What the bus needs of one node-redis connection. */
export interface RedisConnection {
  /** One command, its raw RESP2 reply. */
  command<T>(args: readonly string[]): Promise<T>;
  /** Hears each socket error (the client reconnects by itself, with `reconnectDelayMs`). */
  onLoss(listener: (error: unknown) => void): void;
  /** Hears each time the connection is ready for commands: connected, and again after a loss. */
  onReady(listener: () => void): () => void;
  /** Connected and ready for commands now. */
  isReady(): boolean;
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
  /**
   * How long a command may wait for its reply, queued while Redis is unreachable included,
   * before it fails (node-redis's own default, 5 s, would drop what a longer outage queued).
   */
  commandTimeoutMs?: number;
}

const FIRST_RETRY_MS = 50;

/**
 * The longest wait between two attempts to reach Redis — reconnecting, and the reading loop's
 * retries: a process is back at most this long (plus one connection set-up) after Redis is.
 */
export const RECONNECT_DELAY_CAP_MS = 1_000;

/** The wait before attempt `retries + 1`: 50 ms doubling, capped at `RECONNECT_DELAY_CAP_MS`. */
export function reconnectDelayMs(retries: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(Math.max(retries, 0), 10), RECONNECT_DELAY_CAP_MS);
}

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
    ...(options.commandTimeoutMs === undefined
      ? {}
      : {
          commandOptions: {
            ...options.clientOptions?.commandOptions,
            timeout: options.commandTimeoutMs,
          },
        }),
    socket: {
      ...options.clientOptions?.socket,
      keepAlive: true,
      reconnectStrategy: reconnectDelayMs,
    },
    // RESP2 on purpose: the bus reads its replies as flat arrays.
  } as unknown as RedisClientOptions);
  const listeners = new Set<(error: unknown) => void>();
  client.on('error', (error: unknown) => {
    for (const listener of listeners) listener(error);
  });
  const readyListeners = new Set<() => void>();
  client.on('ready', () => {
    for (const listener of [...readyListeners]) listener();
  });
  return {
    command: <T>(args: readonly string[]) => client.sendCommand(args) as Promise<T>,
    onLoss(listener) {
      listeners.add(listener);
    },
    onReady(listener) {
      readyListeners.add(listener);
      return () => {
        readyListeners.delete(listener);
      };
    },
    isReady: () => client.isReady,
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
