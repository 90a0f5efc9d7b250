/**
 * The route setups of the READMEs and the production guide, run: each block marked
 * `<!-- snippet: run -->` (`scripts/snippets.ts`) is written out unchanged and started as its
 * own process (`readme-routes/harness.ts`: the scripted model, an ephemeral loopback port);
 * the test then starts a run through the snippet's start route, follows its events to the end
 * and reads its snapshot. A snippet that drifts from the API — or stops serving — fails here.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PublicRunSnapshotSchema, type RunStatus } from '@runlight/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnippets } from '../../../scripts/snippets';
import { Follower, SseReader } from '../src/http/__tests__/http-test-kit';
import { SNIPPET_ANSWER } from './readme-routes/answer';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HARNESS = fileURLToPath(new URL('./readme-routes/harness.ts', import.meta.url));
// Inside the runtime package, so `@runlight/runtime` (itself) and `hono` resolve from the snippet.
const SCRATCH = fileURLToPath(
  new URL(`../.scratch/readme-routes-${process.pid}/`, import.meta.url),
);

const snippets = await readSnippets(ROOT);
const runnable = snippets.filter((snippet) => snippet.run);
const messages = [{ role: 'user', content: 'Hi' }];

/**
 * Writes every runnable snippet out and starts them all in one harness process (the runtime
 * loads once); each file's port, or why it did not start.
 */
async function startSnippets(): Promise<{
  ports: Map<string, Promise<number>>;
  child: ChildProcess;
}> {
  const files = runnable.map((snippet) => join(SCRATCH, snippet.file));
  for (const [index, file] of files.entries()) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, runnable[index]!.code);
  }
  const child = fork(HARNESS, files, {
    execArgv: ['--import', 'tsx', '--conditions=@runlight/source'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const settle = new Map<string, { resolve(port: number): void; reject(error: Error): void }>();
  const ports = new Map(
    files.map((file) => [
      file,
      new Promise<number>((resolve, reject) => settle.set(file, { resolve, reject })),
    ]),
  );
  for (const port of ports.values()) port.catch(() => {}); // awaited by each test
  child.on(
    'message',
    (message: { type: string; file: string; port?: number; message?: string }) => {
      if (message.type === 'listening') settle.get(message.file)?.resolve(message.port!);
      if (message.type === 'failed') {
        settle
          .get(message.file)
          ?.reject(new Error(`the snippet did not start: ${message.message}`));
      }
    },
  );
  child.on('exit', (code) => {
    for (const { reject } of settle.values())
      reject(new Error(`the harness exited (${code}):\n${output}`));
  });
  return { ports, child };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ messages }),
  });

describe('the README route snippets, run against a real server', () => {
  let started: Awaited<ReturnType<typeof startSnippets>>;
  beforeAll(async () => {
    started = await startSnippets();
  });
  afterAll(async () => {
    if (started) await stop(started.child);
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('runs every snippet that starts a server', () => {
    const servers = snippets.filter((snippet) =>
      /\.listen\(|export default app\b/.test(snippet.code),
    );
    // The getting-started guides' servers run in their scaffold checks
    // (scripts/scaffolds/scaffold-checks.ts).
    const unrun = servers.filter((snippet) => !snippet.run && !snippet.scaffold);
    expect(unrun.map((snippet) => snippet.origin)).toEqual([]);
    expect(runnable.map((snippet) => snippet.origin)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^README\.md:/)]),
    );
  });

  for (const snippet of runnable) {
    it(`${snippet.origin}: the start route runs a run its events and snapshot show`, async () => {
      const port = await started.ports.get(join(SCRATCH, snippet.file))!;
      const base = `http://127.0.0.1:${port}/api`;
      // The snippet's `authorize` is asked first: a refused reader starts nothing.
      expect((await post(`${base}/runs`, { 'x-user': 'nobody' })).status).toBe(403);
      const response = await post(`${base}/runs`);
      expect(response.status).toBe(201);
      const { runId } = (await response.json()) as { runId: string };

      const events = await fetch(`${base}/runs/${runId}/events`);
      expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const follower = new Follower();
      let status: RunStatus | undefined;
      for (const message of await new SseReader(events.body!).rest()) {
        follower.apply(message);
        const event = JSON.parse(message.data) as { type: string; status?: RunStatus };
        if (event.type === 'run-status') status = event.status;
      }
      expect(status).toBe('completed'); // the server ended the stream on the terminal event
      expect(follower.text).toBe(SNIPPET_ANSWER);

      const snapshot = PublicRunSnapshotSchema.parse(
        await (await fetch(`${base}/runs/${runId}`)).json(),
      );
      expect(snapshot.run.status).toBe('completed');
      expect(snapshot.assistant?.message.parts).toContainEqual(
        expect.objectContaining({ type: 'text', text: SNIPPET_ANSWER }),
      );
    });
  }
});
