import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('..', import.meta.url));
const NEXT_BIN = fileURLToPath(new URL('../node_modules/next/dist/bin/next', import.meta.url));

export interface NextServer {
  url: string;
  /** Everything the server printed (for a failing test's message). */
  output(): string;
  close(): Promise<void>;
}

/** A free loopback port (asked of the OS, then released for `next start`). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * `next start` of the example's production build on loopback. It builds nothing: run
 * `pnpm --filter @runlight/example-next-chat build` first (`pnpm test:next` does both).
 */
export async function startNextServer(env: Record<string, string> = {}): Promise<NextServer> {
  if (!existsSync(`${EXAMPLE}/.next/BUILD_ID`)) {
    throw new Error('No production build: run `pnpm --filter @runlight/example-next-chat build`');
  }
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [NEXT_BIN, 'start', '--hostname', '127.0.0.1', '--port', String(port)],
    {
      cwd: EXAMPLE,
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        // The scripted model, whatever the caller's shell holds.
        OPENAI_API_KEY: '',
        RUNLIGHT_OPENAI_BASE_URL: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited:\n${output}`);
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`next start not ready after 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, output: () => output, close };
}
