/**
 * `pnpm test:registry`: Runlight's shadcn registry as a new app gets it. Builds the registry
 * with the `shadcn` CLI (`shadcn build`), packs `@runlight/protocol`, `client` and `react`,
 * scaffolds a fresh app outside the workspace with `create-next-app` from npm (its defaults:
 * App Router, TypeScript, Tailwind 4; Google Fonts taken out, there is no network for them),
 * installs Runlight into it, and follows registry/README.md's offline steps: its
 * `components.json`, then one `shadcn add --yes` of every built item from the files (no registry
 * on the network), `runlight-shadcn-theme` included; every file an item names must appear. Then
 * `next build` (typechecks the copied sources), and the gallery of every state in Chromium,
 * light and dark: each state must show its words, the Approve button must be a filled button in
 * the theme's `--primary`, axe-core must find no violation (WCAG 2.x A/AA, colour contrast
 * included), the live regions must not hold a ticking time, and the approval card must answer by
 * keyboard alone.
 *
 * The scratch folder (`$RUNLIGHT_REGISTRY_DIR`, default `<tmpdir>/runlight-registry-<hash of
 * this checkout's path>`) keeps its node_modules between runs; everything else is scaffolded
 * and written again on each run. `RUNLIGHT_SCREENSHOTS=1` (`pnpm screenshots`) also writes
 * `docs/gallery-light.png` and `docs/gallery-dark.png`, which the README shows. `--skip-build`
 * reuses the packages' `dist/`; `--browser-only` reuses the last scratch app and its
 * `next build` (to iterate on the browser checks).
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
import { sh, step, timings } from '../steps';
import { expectGallery, expectKeyboardPaths } from './registry-gallery';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The gallery page: the app's own code using the components (copied into its `app/`). */
const GALLERY = join(ROOT, 'scripts', 'registry-app', 'app');
const SHADCN = join(ROOT, 'registry', 'node_modules', '.bin', 'shadcn');
/** Pinned so the scaffold is the same on every run: today's `create-next-app` (Next.js 16). */
const CREATE_NEXT_APP = 'create-next-app@16.4.3';
const PACKED = ['protocol', 'client', 'react'] as const;
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
const SCRATCH =
  process.env.RUNLIGHT_REGISTRY_DIR ?? join(tmpdir(), `runlight-registry-${CHECKOUT}`);
const TARBALLS = join(SCRATCH, '.tarballs');
const BUILT = join(SCRATCH, '.registry');
const SCAFFOLD = join(SCRATCH, '.scaffold');
/** What stays in the scratch folder between runs: the rest is scaffolded again. */
const KEPT = new Set(['node_modules', '.tarballs', '.registry', '.scaffold']);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.RUNLIGHT_SCREENSHOTS === '1';

/** What the scratch app installs beside Runlight and the scaffold's own: `@runlight/react`'s peers. */
const PEERS: Record<string, string> = {
  '@tanstack/react-query': '^5.108.4',
  ai: '^7.0.173',
  zod: '^4.6.7',
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

/** `create-next-app` from npm with its defaults (App Router, TypeScript, Tailwind 4), no install. */
async function scaffold(): Promise<void> {
  await rm(SCAFFOLD, { recursive: true, force: true });
  await mkdir(SCAFFOLD, { recursive: true });
  await sh(
    'npx',
    [
      '--yes',
      CREATE_NEXT_APP,
      'runlight-registry-check',
      ...['--yes', '--ts', '--tailwind', '--app', '--use-npm', '--skip-install', '--disable-git'],
    ],
    SCAFFOLD,
  );
  for (const entry of await readdir(SCRATCH)) {
    if (!KEPT.has(entry)) await rm(join(SCRATCH, entry), { recursive: true, force: true });
  }
  await cp(join(SCAFFOLD, 'runlight-registry-check'), SCRATCH, { recursive: true });
  await rm(SCAFFOLD, { recursive: true, force: true });
}

/** The scaffold's layout loads Geist from Google Fonts at build time; no network reaches them. */
async function stripGoogleFonts(): Promise<void> {
  const file = join(SCRATCH, 'app', 'layout.tsx');
  const source = await readFile(file, 'utf8');
  const stripped = source
    .replace(/^import .* from "next\/font\/google";\n/m, '')
    .replace(/^const \w+ = Geist(?:_Mono)?\(\{[\s\S]*?\}\);\n\n/gm, '')
    .replace(/\$\{geist\w+\.variable\} /g, '');
  if (/next\/font|geist/i.test(stripped)) {
    throw new Error(`create-next-app's layout changed; fonts left in:\n${stripped}`);
  }
  await writeFile(file, stripped);
}

/** The scratch app: a fresh scaffold, the gallery page, Runlight's packages installed. */
async function createApp(tarballs: Record<string, string>): Promise<void> {
  await scaffold();
  await stripGoogleFonts();
  await cp(GALLERY, join(SCRATCH, 'app'), { recursive: true });
  const manifestFile = join(SCRATCH, 'package.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const withRunlight = {
    ...manifest,
    dependencies: { ...manifest.dependencies, ...tarballs, ...PEERS },
    overrides: Object.fromEntries(Object.keys(tarballs).map((name) => [name, `$${name}`])),
  };
  await writeFile(manifestFile, `${JSON.stringify(withRunlight, null, 2)}\n`);
  await rm(join(SCRATCH, 'node_modules', '@runlight'), { recursive: true, force: true });
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    SCRATCH,
  );
}

/** The `components.json` registry/README.md gives an app without `shadcn init` (its JSON block). */
async function documentedComponentsJson(): Promise<string> {
  const readme = await readFile(join(ROOT, 'registry', 'README.md'), 'utf8');
  const block = /```json\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('registry/README.md shows no components.json');
  JSON.parse(block);
  return block;
}

/**
 * registry/README.md's offline steps in the fresh scaffold: its `components.json`, then one
 * `shadcn add --yes` of every built item by file path (any registry request would go to a closed
 * port and fail). Without a terminal the CLI can exit 0 having written nothing (no
 * components.json), so every file the items name must be there afterwards.
 */
async function addItems(): Promise<string[]> {
  const items = (await readdir(BUILT)).filter(
    (file) => file.startsWith('runlight-') && file.endsWith('.json'),
  );
  const index = JSON.parse(await readFile(join(BUILT, 'registry.json'), 'utf8')) as {
    items: { name: string; registryDependencies?: string[]; files?: { target?: string }[] }[];
  };
  for (const item of index.items) {
    if ((item.registryDependencies ?? []).length > 0) {
      throw new Error(`${item.name} depends on another registry; it would not install offline`);
    }
  }
  await writeFile(join(SCRATCH, 'components.json'), await documentedComponentsJson());
  // As a script, CI or an agent runs it: no terminal, stdin closed (a prompt must not wait).
  const add = ['add', '--yes', ...items.map((file) => join(BUILT, file))];
  await sh('/bin/sh', ['-c', 'exec "$0" "$@" < /dev/null', SHADCN, ...add], SCRATCH, {
    // Any registry request would go to this closed port and fail the step.
    REGISTRY_URL: 'http://127.0.0.1:9/r',
    npm_config_offline: 'true',
  });
  const targets = index.items.flatMap((item) => (item.files ?? []).map((file) => file.target));
  for (const target of targets) {
    if (target === undefined) continue;
    const written = await readFile(join(SCRATCH, target), 'utf8').catch(() => null);
    if (written === null) throw new Error(`shadcn add exited 0 but did not write ${target}`);
    if (/\.tsx?$/.test(target) && !/^['"]use client['"];/.test(written)) {
      throw new Error(`${target} is not a client module`);
    }
  }
  const css = await readFile(join(SCRATCH, 'app', 'globals.css'), 'utf8');
  for (const token of ['--primary:', '--color-primary:', '.dark', '--color-runlight-success']) {
    if (!css.includes(token)) throw new Error(`shadcn add did not write ${token} to globals.css`);
  }
  return readdir(join(SCRATCH, 'components', 'runlight'));
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
    await sh(SHADCN, ['build', 'registry.json', '--output', BUILT], join(ROOT, 'registry'));
  });
  const tarballs = await step('pnpm pack', pack);
  await step(`${CREATE_NEXT_APP} scaffold + Runlight installed in ${SCRATCH}`, () =>
    createApp(tarballs),
  );
  const added = await step('components.json + shadcn add --yes of every item file', addItems);
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
      const page = await browser.newPage({
        viewport: { width: 1280, height: 900 },
        colorScheme: theme,
      });
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
