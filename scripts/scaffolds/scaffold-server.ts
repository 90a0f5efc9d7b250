/**
 * What the scaffold checks need around a server: a free port, a process started in its own
 * group (so `npx` and whatever it starts stop together), waiting until it answers, and the
 * requests of a reader with no credentials.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Started {
  /** Everything it printed so far. */
  output(): string;
  /** Ends the process group (SIGTERM) and waits for the leader to exit. */
  stop(): Promise<void>;
}

/** Starts `command` in its own process group, printing nothing until asked. */
export function startProcess(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Started {
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    },
  };
}

/** Polls `url` until it answers (any status below 500). */
export async function waitForAnswer(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Reads an event stream until `found` matches its text, or `ms` pass. */
async function readStream(response: Response, found: RegExp, ms: number): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (!found.test(text) && Date.now() < deadline) {
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now())),
      ]);
      if (next === null || next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text;
}

/**
 * Every route the guides' apps serve, asked with no credentials; returns what did not answer
 * 401. The many-runs routes refuse per run: the batch lists the run as `forbidden` (no
 * snapshot), the multiplexed stream sends its `run-error` with status 401 — or the whole
 * request is a 401.
 */
export async function unauthenticatedLeaks(api: string, runId: string): Promise<string[]> {
  const leaks: string[] = [];
  const json = (body: unknown) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const plain: [string, RequestInit][] = [
    [`/runs/${runId}`, {}],
    [`/runs/${runId}/events`, {}],
    [`/runs/${runId}/operations`, {}],
    [`/runs/${runId}/cancel`, json({})],
    [`/runs/${runId}/approvals`, json({ approvals: [{ approvalId: 'a', approved: true }] })],
    ['/runs', json({ prompt: 'Say hello.' })],
  ];
  for (const [path, init] of plain) {
    const response = await fetch(`${api}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    if (response.status !== 401) leaks.push(`${init.method ?? 'GET'} ${path} → ${response.status}`);
  }
  const batch = await fetch(`${api}/runs?ids=${runId}`);
  if (batch.status !== 401) {
    const body = (await batch.json().catch(() => null)) as {
      snapshots?: unknown[];
      forbidden?: string[];
    } | null;
    if (batch.status !== 200 || body?.snapshots?.length !== 0 || !body.forbidden?.includes(runId))
      leaks.push(`GET /runs?ids=${runId} → ${batch.status} ${JSON.stringify(body)}`);
  }
  const multiplexed = await fetch(`${api}/run-events?run=${runId}`);
  if (multiplexed.status !== 401) {
    const refused = /event: run-error\ndata: [^\n]*"status":401/;
    const text = await readStream(multiplexed, refused, 5_000);
    if (!refused.test(text)) leaks.push(`GET /run-events?run=${runId} → ${text.slice(0, 300)}`);
  }
  return leaks;
}

/**
 * `useChat`'s routes (`createChatRoutes` at `path`): a start with no credentials answers 401; a
 * signed-in start makes a chat whose conversation a reader with no credentials cannot read.
 */
export async function chatLeaks(origin: string, path: string, cookie: string): Promise<string[]> {
  const leaks: string[] = [];
  const chatId = `chat-${Date.now()}`;
  const start = (headers: Record<string, string>) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        chatId,
        trigger: 'submit-message',
        messageId: null,
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Say hello.' }] }],
      }),
    });
  const anonymous = await start({});
  await anonymous.body?.cancel();
  if (anonymous.status !== 401) leaks.push(`POST ${path} → ${anonymous.status}`);
  const signedIn = await start({ cookie });
  const started = await signedIn.text();
  if (!signedIn.ok)
    throw new Error(`a signed-in POST ${path} answered ${signedIn.status}: ${started}`);
  const read = await fetch(`${origin}${path}?chatId=${chatId}`);
  await read.body?.cancel();
  if (read.status !== 401) leaks.push(`GET ${path}?chatId=${chatId} → ${read.status}`);
  return leaks;
}
