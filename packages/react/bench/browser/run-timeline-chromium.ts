import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { FirstRenderSample, UpdateSample } from './bench-page';

/**
 * `RunTimeline` in a real browser with React's production build: Vite builds `bench-page.tsx`
 * (mode production), a loopback server serves it, Debian's Chromium (headless) runs it. For 50
 * and 500 operations it prints the median first render — commit, commit + forced layout (the
 * figure held against the 16.7 ms frame budget), time to the next animation frame — beside a
 * plain `<ul>` of the same operations rendered in the same page, and the cost of one live event
 * and of one clock tick on the timeline. Compare ratios within one run, not ms across runs.
 *
 * `pnpm bench:timeline` (also the last part of `pnpm bench`); `RUNS=21` for more samples,
 * `CHROMIUM_PATH` for another Chromium.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 15);
const WARMUP = 3;
const FRAME_MS = 1000 / 60;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function buildPage(outDir: string): Promise<void> {
  await build({
    configFile: false,
    root: here,
    mode: 'production',
    logLevel: 'error', // "use client" directives of dependencies warn in a bundle
    resolve: { conditions: ['@runlight/source', 'module', 'browser', 'production'] },
    build: { outDir, emptyOutDir: true, minify: true, reportCompressedSize: false },
  });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Serves the built page on 127.0.0.1 (module scripts do not load from file: URLs). */
function serve(directory: string): Promise<{ url: string; close: () => void }> {
  const server = createServer(async (request, response) => {
    const path = normalize(new URL(request.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    const file = join(directory, path === '' ? 'index.html' : path);
    if (!file.startsWith(directory) || !(await stat(file).catch(() => null))?.isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => server.close() });
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number) => `${value.toFixed(2).padStart(7)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

async function main(): Promise<void> {
  if (!(await stat(CHROMIUM).catch(() => null))) {
    console.log(
      `RunTimeline in Chromium: skipped, no browser at ${CHROMIUM} (apt-get install chromium)`,
    );
    return;
  }
  const outDir = await mkdtemp(join(tmpdir(), 'runlight-timeline-bench-'));
  await buildPage(outDir);
  const site = await serve(outDir);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--js-flags=--expose-gc',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => console.error('bench page:', error));
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready]', { state: 'attached' });
    const version = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]);

    const first = (subject: 'timeline' | 'plain', count: number) =>
      page.evaluate(([s, c]) => window.runlightBench.firstRender(s, c), [subject, count] as const);
    const cases = [
      ['timeline', 50],
      ['plain', 50],
      ['timeline', 500],
      ['plain', 500],
    ] as const;
    const samples: Record<string, FirstRenderSample[]> = Object.fromEntries(
      cases.map(([subject, count]) => [`${subject} ${count}`, []]),
    );
    for (let run = 0; run < WARMUP + RUNS; run++) {
      // Interleaved, so a slow moment of the shared machine lands on every case alike.
      for (const [subject, count] of cases) {
        const sample = await first(subject, count);
        if (run >= WARMUP) samples[`${subject} ${count}`]!.push(sample);
      }
    }
    const updates: Record<number, UpdateSample[]> = { 50: [], 500: [] };
    for (let run = 0; run < WARMUP + RUNS; run++) {
      for (const count of [50, 500]) {
        const sample = await page.evaluate((c) => window.runlightBench.liveUpdate(c), count);
        if (run >= WARMUP) updates[count]!.push(sample);
      }
    }
    const tickSamples: Record<number, UpdateSample[]> = {};
    for (const count of [50, 500]) {
      tickSamples[count] = await page.evaluate((c) => window.runlightBench.ticks(c, 30), count);
    }

    const figure = (key: string, field: keyof FirstRenderSample) =>
      median(samples[key]!.map((sample) => sample[field]));
    const lines = [
      `RunTimeline in ${version} (headless), React production build — median of ${RUNS} runs:`,
      '                        commit   commit+layout   next frame   rows  elements',
    ];
    for (const count of [50, 500]) {
      for (const subject of ['timeline', 'plain'] as const) {
        const key = `${subject} ${count}`;
        const name = subject === 'timeline' ? `RunTimeline ${count}` : `  plain <ul> ${count}`;
        lines.push(
          `${name.padEnd(19)} ${ms(figure(key, 'commitMs'))} ${ms(figure(key, 'layoutMs'))}    ${ms(figure(key, 'frameMs'))}  ${String(figure(key, 'rows')).padStart(5)} ${String(figure(key, 'elements')).padStart(9)}`,
        );
      }
    }
    const t500 = figure('timeline 500', 'layoutMs');
    const t50 = figure('timeline 50', 'layoutMs');
    lines.push(
      `500 operations, commit+layout: ${ms(t500).trim()} — ${t500 <= FRAME_MS ? 'within' : 'OVER'} one frame (16.7 ms); ${ratio(t500, figure('plain 500', 'layoutMs'))} the plain <ul> of 500; ${ratio(t500, t50)} the 50-operation timeline`,
    );
    const update = (values: UpdateSample[]) => ({
      layoutMs: median(values.map((value) => value.layoutMs)),
      rows: Math.max(...values.map((value) => value.rowsTouched)),
      mutations: median(values.map((value) => value.mutations)),
    });
    const live = { 50: update(updates[50]!), 500: update(updates[500]!) };
    const tick = { 50: update(tickSamples[50]!), 500: update(tickSamples[500]!) };
    lines.push(
      'Update path on a live timeline (event bytes or clock tick → DOM → forced layout):',
      `  one run-operation event, 50 / 500 operations: ${ms(live[50].layoutMs)} / ${ms(live[500].layoutMs)} (${ratio(live[500].layoutMs, live[50].layoutMs)}); rows changed ≤ ${live[50].rows} / ${live[500].rows}, mutations ${live[50].mutations} / ${live[500].mutations}`,
      `  one clock tick,           50 / 500 operations: ${ms(tick[50].layoutMs)} / ${ms(tick[500].layoutMs)} (${ratio(tick[500].layoutMs, tick[50].layoutMs)}); rows changed ≤ ${tick[50].rows} / ${tick[500].rows}, mutations ${tick[50].mutations} / ${tick[500].mutations}; ${tickSamples[500]!.length} ticks`,
    );
    console.log(lines.join('\n'));
  } finally {
    await browser.close();
    site.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

await main();
