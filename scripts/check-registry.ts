/**
 * `pnpm test:registry`: Runlight's shadcn registry as a new app gets it. Builds the registry
 * with the `shadcn` CLI (`shadcn build`), packs `@runlight/protocol`, `client` and `react`,
 * creates a scratch Next.js 16 + Tailwind 4 app outside the workspace, adds every registry item
 * to it from the locally built JSON files (`shadcn add <file>`: no registry on the network),
 * builds it (`next build` typechecks the copied sources), starts it and opens its gallery of
 * every state in Chromium, light and dark: each state must show its words, axe-core must find
 * no violation (WCAG 2.x A/AA, colour contrast included), the live regions must not hold a
 * ticking time, and the approval card must answer by keyboard alone.
 *
 * The scratch folder (`$RUNLIGHT_REGISTRY_DIR`, default `<tmpdir>/runlight-registry-<hash of
 * this checkout's path>`) keeps its node_modules between runs; the Runlight tarballs and every
 * file the CLI writes are replaced on each run. `RUNLIGHT_SCREENSHOTS=1` (`pnpm screenshots`)
 * also writes `docs/gallery-light.png` and `docs/gallery-dark.png`, which the README shows.
 * `--skip-build` reuses the packages' `dist/`; `--browser-only` reuses the last scratch app and
 * its `next build` (to iterate on the browser checks).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { expectGallery, expectKeyboardPaths } from './registry-gallery';
import { sh, step, timings } from './steps';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = join(ROOT, 'scripts', 'registry-app');
const PACKED = ['protocol', 'client', 'react'] as const;
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
const SCRATCH =
  process.env.RUNLIGHT_REGISTRY_DIR ?? join(tmpdir(), `runlight-registry-${CHECKOUT}`);
const TARBALLS = join(SCRATCH, '.tarballs');
const BUILT = join(SCRATCH, '.registry');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.RUNLIGHT_SCREENSHOTS === '1';

/** What the scratch app installs beside Runlight: a Next.js 16 + Tailwind 4 app's own. */
const APP_DEPENDENCIES: Record<string, string> = {
  next: '16.4.6',
  react: '^19.0.0',
  'react-dom': '^19.0.0',
  '@tanstack/react-query': '^5.108.4',
  ai: '^7.0.173',
  zod: '^4.6.7',
  tailwindcss: '4.3.5',
  '@tailwindcss/postcss': '4.3.5',
  typescript: '5.9.3',
  '@types/node': '^20.19.0',
  '@types/react': '^19.0.0',
  '@types/react-dom': '^19.0.0',
};

async function pack(): Promise<Record<string, string>> {
  await rm(TARBALLS, { recursive: true, force: true });
  await mkdir(TARBALLS, { recursive: true });
  const tarballs: Record<string, string> = {};
  for (const name of PACKED) {
    await sh('pnpm', ['pack', '--pack-destination', TARBALLS], join(ROOT, 'packages', name));
  }
  for (const file of await readdir(TARBALLS)) {
    const name = PACKED.find((candidate) => file === `runlight-${candidate}-0.1.0.tgz`);
    if (name === undefined) throw new Error(`unexpected tarball ${file}`);
    tarballs[`@runlight/${name}`] = `file:${join(TARBALLS, file)}`;
  }
  return tarballs;
}

/** The scratch app: its manifest, the template's files, nothing the CLI wrote last time. */
async function createApp(tarballs: Record<string, string>): Promise<void> {
  for (const leftover of ['.next', 'app', 'components', 'lib']) {
    await rm(join(SCRATCH, leftover), { recursive: true, force: true });
  }
  await cp(TEMPLATE, SCRATCH, { recursive: true });
  const manifest = {
    name: 'runlight-registry-check',
    private: true,
    type: 'module',
    dependencies: { ...tarballs, ...APP_DEPENDENCIES },
    overrides: Object.fromEntries(Object.keys(tarballs).map((name) => [name, `$${name}`])),
  };
  await writeFile(join(SCRATCH, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(join(SCRATCH, 'node_modules', '@runlight'), { recursive: true, force: true });
  await rm(join(SCRATCH, 'package-lock.json'), { force: true });
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    SCRATCH,
  );
}

/** `shadcn add` of every built item, by file path: the CLI reads no registry on the network. */
async function addItems(): Promise<string[]> {
  const items = (await readdir(BUILT)).filter(
    (file) => file.startsWith('runlight-') && file.endsWith('.json'),
  );
  const index = JSON.parse(await readFile(join(BUILT, 'registry.json'), 'utf8')) as {
    items: { name: string; registryDependencies?: string[] }[];
  };
  for (const item of index.items) {
    if ((item.registryDependencies ?? []).length > 0) {
      throw new Error(`${item.name} depends on another registry; it would not install offline`);
    }
  }
  const shadcn = join(ROOT, 'registry', 'node_modules', '.bin', 'shadcn');
  await sh(
    shadcn,
    ['add', '--yes', '--overwrite', '--silent', ...items.map((file) => join(BUILT, file))],
    SCRATCH,
    // Any registry request would go to this closed port and fail the step.
    { REGISTRY_URL: 'http://127.0.0.1:9/r', npm_config_offline: 'true' },
  );
  const css = await readFile(join(SCRATCH, 'app', 'globals.css'), 'utf8');
  for (const token of ['--runlight-busy', '--runlight-danger', '--color-runlight-success']) {
    if (!css.includes(token)) throw new Error(`shadcn add did not write ${token} to globals.css`);
  }
  const added = await readdir(join(SCRATCH, 'components', 'runlight'));
  for (const file of added) {
    const source = await readFile(join(SCRATCH, 'components', 'runlight', file), 'utf8');
    if (!/^['"]use client['"];/.test(source)) throw new Error(`${file} is not a client module`);
  }
  return added;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startNext(): Promise<{ origin: string; stop: () => void; output: () => string }> {
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [join(SCRATCH, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port)],
    { cwd: SCRATCH, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: 'pipe' },
  );
  let output = '';
  server.stdout.on('data', (chunk) => {
    output += chunk;
  });
  server.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(origin).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      server.kill('SIGTERM');
      throw new Error(`next start did not answer:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { origin, stop: () => server.kill('SIGTERM'), output: () => output };
}

async function screenshot(page: Page, theme: string): Promise<void> {
  await mkdir(join(ROOT, 'docs'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'docs', `gallery-${theme}.png`), fullPage: true });
}

/** The registry built, the packages packed, the scratch app created, every item added, built. */
async function buildAndInstall(): Promise<void> {
  await step('shadcn build (registry/registry.json → registry-item JSON)', async () => {
    await rm(BUILT, { recursive: true, force: true });
    await sh(
      join(ROOT, 'registry', 'node_modules', '.bin', 'shadcn'),
      ['build', 'registry.json', '--output', BUILT],
      join(ROOT, 'registry'),
    );
  });
  const tarballs = await step('pnpm pack', pack);
  await step(`scratch Next.js 16 + Tailwind 4 app in ${SCRATCH}`, () => createApp(tarballs));
  const added = await step('shadcn add every item from the local files', addItems);
  console.log(`  added ${added.join(', ')}`);
  await step('next build', () =>
    sh(
      process.execPath,
      [join(SCRATCH, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'],
      SCRATCH,
    ),
  );
}

const started = performance.now();
const browserOnly = process.argv.includes('--browser-only');
await mkdir(SCRATCH, { recursive: true });
if (!browserOnly && !process.argv.includes('--skip-build')) {
  await step('build @runlight/protocol, client, react (tsdown)', () =>
    sh(
      'pnpm',
      [
        '--filter',
        '@runlight/protocol',
        '--filter',
        '@runlight/client',
        '--filter',
        '@runlight/react',
        'run',
        'build',
      ],
      ROOT,
    ),
  );
}
if (!browserOnly) await buildAndInstall();
const server = await step('next start', startNext);
const axeSource = await readFile(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  for (const theme of ['light', 'dark'] as const) {
    await step(`Chromium, ${theme}: every state, axe-core, keyboard`, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
      await page.goto(`${server.origin}/?theme=${theme}`);
      const report = await expectGallery(page, axeSource);
      console.log(`  ${report}`);
      if (SCREENSHOTS) await screenshot(page, theme);
      console.log(`  ${await expectKeyboardPaths(page)}`);
      await page.close();
    });
  }
} catch (error) {
  process.stderr.write(server.output());
  throw error;
} finally {
  await browser.close();
  server.stop();
}
const total = (performance.now() - started) / 1000;
console.log(`\nregistry check passed in ${total.toFixed(1)} s`);
for (const [name, seconds] of timings)
  console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
