/** The fan-out benchmark's server children: one forked process per server, driven over IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from './fanout-server';
import type { ParentMessage, ServerMessage } from './slot-schedule';

const SERVER = fileURLToPath(new URL('./fanout-server.ts', import.meta.url));

export interface Child {
  process: ChildProcess;
  role: ServerConfig['role'];
  port: number | null;
  next(type: ServerMessage['type']): Promise<ServerMessage>;
}

/** Asks every server child to stop, killing one that has not exited within 5 s. */
export async function stopChildren(children: readonly Child[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      const exited = new Promise((resolve) => child.process.once('exit', resolve));
      tell(child, { type: 'stop' });
      const timer = setTimeout(() => child.process.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Runs a bundled bench entry in its own process (its CPU time is the process's), to its end. */
export function runBundled(entry: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(entry, process.argv.slice(2), { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${entry} exited with ${code}`)),
    );
  });
}

/** The server children run: `bundleEntry('fanout-server')`'s build, or (`--from-source`) the sources via tsx. */
let serverEntry: string | null = null;

/** Sets the bundled server entry the children run (null: the sources via tsx). */
export function useServerEntry(entry: string | null): void {
  serverEntry = entry;
}

export function spawnServer(config: ServerConfig, current: number[]): Promise<Child> {
  const bundled = serverEntry !== null;
  const child = fork(serverEntry ?? SERVER, [JSON.stringify(config)], {
    // FANOUT_CPU_PROF=<dir>: a CPU profile of every server process, written when it stops.
    execArgv: [
      // The workspace sources, as the parent resolves them (no build needed).
      ...(bundled ? [] : ['--import', 'tsx', '--conditions=@runlight/source']),
      // The idle-watcher probe measures memory after a full GC.
      '--expose-gc',
      ...(process.env.FANOUT_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FANOUT_CPU_PROF}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: { type: string; resolve: (message: ServerMessage) => void }[] = [];
  child.on('message', (message: ServerMessage) => {
    if (message.type === 'slot') {
      current[message.slot] = Math.max(current[message.slot] ?? 0, message.k);
      return;
    }
    const at = waiting.findIndex((waiter) => waiter.type === message.type);
    if (at >= 0) waiting.splice(at, 1)[0]!.resolve(message);
  });
  const next = (type: ServerMessage['type']) =>
    new Promise<ServerMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${config.role}: no ${type}`)), 60_000);
      waiting.push({
        type,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  return next('ready').then((ready) => ({
    process: child,
    role: config.role,
    port: ready.type === 'ready' ? ready.port : null,
    next,
  }));
}

export const tell = (child: Child, message: ParentMessage) => child.process.send(message);
