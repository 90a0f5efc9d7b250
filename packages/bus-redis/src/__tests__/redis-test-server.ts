import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createClient } from 'redis';

/**
 * The Redis the tests run on: the server at 127.0.0.1:6379 (`REDIS_URL` moves it) for the
 * ordinary suites, and a `redis-server` child of the test's own for the restart faults. Every
 * suite writes under a key prefix of its own (`RUNLIGHT_REDIS_TEST_PREFIX`, default `rl:test:`,
 * then a random part) and deletes those keys after — never anything else.
 */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function answers(url: string): Promise<string | null> {
  const client = createClient({ url, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

const reason = await answers(REDIS_URL);
/** Why the Redis tests do not run, or null when the server answers. */
export const redisUnavailable: string | null = reason && `${REDIS_URL} did not answer (${reason})`;
if (redisUnavailable) console.warn(`Redis tests not run: ${redisUnavailable}`);
export const redisLabel = redisUnavailable
  ? `Redis (not run: ${redisUnavailable})`
  : `Redis at ${REDIS_URL}`;

/** A key prefix unique to this suite. */
export const freshPrefix = () =>
  `${process.env.RUNLIGHT_REDIS_TEST_PREFIX ?? 'rl:test:'}${process.pid}:${randomBytes(4).toString('hex')}:`;

/** An admin connection for a test's own checks; `dropKeys` deletes what a prefix holds. */
export async function adminClient(url = REDIS_URL) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return {
    client,
    async dropKeys(prefix: string) {
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 })) {
        if (keys.length > 0) await client.del(keys);
      }
    },
    close: () => client.close(),
  };
}

/** Why the restart faults do not run (no `redis-server` to start), or null. */
export const ownRedisUnavailable: string | null =
  spawnSync('redis-server', ['--version']).status === 0 ? null : 'no redis-server on PATH';
if (ownRedisUnavailable) console.warn(`Redis fault tests not run: ${ownRedisUnavailable}`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A `redis-server` of the test's own (no persistence): kill it, restart it on the same port. */
export async function startOwnRedis() {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    // Polled until it answers; the bound (a minute of polls) only catches one that never does.
    for (let attempt = 0; (await answers(url)) !== null; attempt++) {
      if (attempt > 1_200) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  const restart = async () => {
    await stop();
    await start();
  };
  return { url, port, start, stop, restart };
}
