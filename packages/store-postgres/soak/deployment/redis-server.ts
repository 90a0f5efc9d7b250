import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** Whether Redis answers `PING` at `port` (RESP over a socket: this package has no Redis client). */
function pong(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (text: string) => done(text.startsWith('+PONG')));
    socket.on('error', () => done(false));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The soak's own `redis-server` (no persistence, as the bus needs none): stopped and started by the Redis faults. */
export interface SoakRedis {
  readonly url: string;
  /** SIGKILL: every connection drops, what Redis held is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it answers. */
  start(): Promise<void>;
}

/** Starts a `redis-server` on a free port (rejects when there is none on PATH). */
export async function startSoakRedis(): Promise<SoakRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child = started;
    const failed = new Promise<never>((_, reject) => {
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`redis-server exited ${code}`)));
    });
    failed.catch(() => {});
    for (let attempt = 0; !(await Promise.race([pong(port), failed])); attempt++) {
      if (attempt > 100) throw new Error(`redis-server on ${port} did not answer`);
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
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}
