import { type ChildProcess, fork } from 'node:child_process';

/** A benchmark process forked on the workspace sources, asked over IPC. */
export interface BenchChild<Message> {
  process: ChildProcess;
  /** Sends `message` and resolves with the child's reply of type `reply`. */
  ask<T>(message: Message, reply: string): Promise<T>;
}

/**
 * Forks `file` (argv[2] = `config` as JSON) through tsx on the `@runlight/source` condition and
 * resolves once it says `{ type: 'ready' }`, with that message's fields. A reply awaited when
 * the child exits rejects, naming `role`.
 */
export function forkBenchChild<Message, Ready extends object = object>(
  file: string,
  config: { role: string },
  options: { env?: NodeJS.ProcessEnv; execArgv?: string[] } = {},
): Promise<BenchChild<Message> & Ready> {
  const child = fork(file, [JSON.stringify(config)], {
    env: options.env ?? process.env,
    execArgv: ['--import', 'tsx', '--conditions=@runlight/source', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (message: unknown) => void>();
  child.on('message', (message: { type: string }) => {
    waiting.get(message.type)?.(message);
    waiting.delete(message.type);
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${config.role} exited (${code})`));
      child.once('exit', onExit);
      waiting.set(type, (message) => {
        child.off('exit', onExit);
        resolve(message as T);
      });
    });
  const ask = <T>(message: Message, reply: string) => {
    const answer = next<T>(reply);
    child.send(message as object);
    return answer;
  };
  return next<Ready>('ready').then((ready) => ({ ...ready, process: child, ask }));
}
