/**
 * Server memory and CPU per connected page with 20 live runs: ONE multiplexed event-stream
 * connection per page vs TWENTY single-run connections per page, on the same runs (same
 * scripted answers), in the same process run, against a no-page baseline.
 *
 *   node --import tsx --expose-gc packages/client/bench/multiplex-page-cost.ts [pages=10]
 *
 * The server runs in a child process (the real runtime, memory store, `node:http`), so its CPU
 * and heap are measured alone; the pages are raw `fetch` readers in this process.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const RUNS = 20;
const TOKENS = 150;
const TOKEN_MS = 20;

type Message =
  | { cmd: 'start'; prefix: string }
  | { cmd: 'begin' }
  | { cmd: 'end' }
  | { cmd: 'wait'; prefix: string };

async function server(): Promise<void> {
  const runtime = await import('@runlight/runtime');
  const { scriptedModel } = await import('@runlight/runtime/testing');
  const store = runtime.createAgentRuntimeStore(runtime.createMemoryDriver());
  const hub = new runtime.RunEventHub();
  const agents = runtime.createAgentRuntime({ store, events: hub });
  const route = runtime.createRunRouter({
    handlers: runtime.createRunHandlers({ store, runtime: hub }),
    multiplex: runtime.createMultiplexHandlers({ store, runtime: hub }),
    basePath: '/api',
    authorize: 'public',
  });
  const http = createServer(runtime.toNodeListener(route));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const text = Array.from({ length: TOKENS }, (_, i) => `token${i} `).join('');
  const done = new Map<string, Promise<unknown>[]>();
  let cpu = process.cpuUsage();
  let heap = 0;
  let peak = 0;
  let sampler: ReturnType<typeof setInterval> | undefined;
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  process.on('message', async (message: Message) => {
    if (message.cmd === 'start') {
      const ids = Array.from({ length: RUNS }, (_, i) => `${message.prefix}-${i}`);
      await Promise.all(ids.map((runId) => store.createRun({ runId })));
      done.set(
        message.prefix,
        ids.map(
          (runId) =>
            agents.startRun({
              runId,
              model: scriptedModel([{ firstTokenMs: 300, tokenMs: TOKEN_MS, text }]),
              messages: [{ role: 'user', content: 'Go' }],
            }).done,
        ),
      );
      process.send!({ ids });
    } else if (message.cmd === 'begin') {
      gc();
      heap = process.memoryUsage().heapUsed;
      peak = heap;
      sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }, 20);
      cpu = process.cpuUsage();
      process.send!({ ok: true });
    } else if (message.cmd === 'wait') {
      await Promise.all(done.get(message.prefix) ?? []);
      process.send!({ ok: true });
    } else {
      const used = process.cpuUsage(cpu);
      clearInterval(sampler);
      process.send!({ cpuMs: (used.user + used.system) / 1000, peakHeap: peak - heap });
    }
  });
  process.send!({ port: (http.address() as AddressInfo).port });
}

function ask<T>(child: ReturnType<typeof fork>, message: Message | null): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    if (message) child.send(message);
  });
}

/** Reads a response body to the end (or until aborted), counting bytes. */
async function drain(response: Response): Promise<number> {
  let bytes = 0;
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return bytes;
      bytes += value.byteLength;
    }
  } catch {
    return bytes;
  }
}

async function main(): Promise<void> {
  const pages = Number(process.argv[2] ?? 10);
  const child = fork(fileURLToPath(import.meta.url), ['server'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
  });
  const { port } = await ask<{ port: number }>(child, null);
  const base = `http://127.0.0.1:${port}/api`;

  const modes = {
    baseline: async (_ids: string[]) => [] as Promise<number>[],
    multiplexed: async (ids: string[]) =>
      Array.from({ length: pages }, async () => {
        const query = ids.map((id) => `run=${encodeURIComponent(`${id}@0`)}`).join('&');
        return drain(await fetch(`${base}/run-events?${query}`));
      }),
    single: async (ids: string[]) =>
      Array.from({ length: pages }).flatMap(() =>
        ids.map(async (id) => drain(await fetch(`${base}/runs/${id}/events`))),
      ),
  };
  const rows: {
    mode: string;
    connections: number;
    cpuMs: number;
    heapMb: number;
    bytes: number;
  }[] = [];
  for (const [mode, connect] of Object.entries(modes)) {
    const prefix = `${mode}-${Date.now()}`;
    await ask(child, { cmd: 'begin' });
    const { ids } = await ask<{ ids: string[] }>(child, { cmd: 'start', prefix });
    const readers = await connect(ids);
    await ask(child, { cmd: 'wait', prefix });
    const bytes = (await Promise.all(readers)).reduce((sum, n) => sum + n, 0);
    const measured = await ask<{ cpuMs: number; peakHeap: number }>(child, { cmd: 'end' });
    rows.push({
      mode,
      connections: mode === 'baseline' ? 0 : mode === 'multiplexed' ? pages : pages * RUNS,
      cpuMs: measured.cpuMs,
      heapMb: measured.peakHeap / 1024 / 1024,
      bytes,
    });
  }
  child.kill();

  const baseline = rows[0]!;
  const perPage = (row: (typeof rows)[number]) => ({
    cpu: (row.cpuMs - baseline.cpuMs) / pages,
    heap: (row.heapMb - baseline.heapMb) / pages,
  });
  const multiplexed = perPage(rows[1]!);
  console.log(
    `\n${RUNS} live runs (${TOKENS} tokens each, ${TOKEN_MS} ms apart), ${pages} pages, server in its own process\n`,
  );
  console.log(
    '| mode | connections | server CPU ms (total) | CPU ms / page | peak heap MB / page | bytes received | CPU vs multiplexed | heap vs multiplexed |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const page = perPage(row);
    const cells =
      row.mode === 'baseline'
        ? ['—', '—', '—', '—']
        : [
            page.cpu.toFixed(1),
            page.heap.toFixed(2),
            `${(page.cpu / multiplexed.cpu).toFixed(2)}×`,
            `${(page.heap / multiplexed.heap).toFixed(2)}×`,
          ];
    console.log(
      `| ${row.mode} | ${row.connections} | ${row.cpuMs.toFixed(0)} | ${cells[0]} | ${cells[1]} | ${row.mode === 'baseline' ? '—' : row.bytes} | ${cells[2]} | ${cells[3]} |`,
    );
  }
}

if (process.argv[2] === 'server') void server();
else void main();
