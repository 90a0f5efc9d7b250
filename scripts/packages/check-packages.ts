/**
 * `pnpm test:packages`: the published packages as a new user gets them. Builds every package
 * once, packs each (`pnpm pack`, which rewrites `workspace:` ranges and applies
 * `publishConfig`), runs publint and attw on every tarball, then installs the tarballs with npm
 * from the registry into a scratch folder outside the workspace, checks that what each package
 * installs accepts its `engines.node` (`check-engines.ts`), runs every README's `npm install`
 * lines literally in empty apps (`check-install-lines.ts`) and runs the consumer checks:
 * plain Node ESM, TypeScript (NodeNext and Bundler, strict + exactOptionalPropertyTypes), a
 * Vite build, the gzip weight of a RunStatus page and a useChat page (`consumers/bundle-size`),
 * and a Next.js App Router `next build` + `next start` answering a page, a snapshot and an SSE
 * stream; the `runlight` bin (`check-cli.ts`: `npx runlight --help`, a tail to a run's end).
 *
 * The TypeScript check also compiles every snippet of the READMEs (`scripts/snippets.ts`).
 *
 * The scratch folder (`$RUNLIGHT_CONSUMER_DIR`, default `<tmpdir>/runlight-consumer-<hash of
 * this checkout's path>`) keeps its node_modules between runs; only the Runlight tarballs are
 * installed afresh. It lies outside the workspace on purpose (Node, TypeScript and Next.js would
 * otherwise find the workspace's own node_modules and lockfile above it), and each checkout has
 * its own, so two checkouts on one machine never share one.
 * Last, the getting-started guides (docs/nextjs.md, docs/vite.md) in apps the frameworks'
 * scaffolders make (`scaffold-apps.ts`, `scaffold-checks.ts`; kept in `$RUNLIGHT_SCAFFOLD_DIR`,
 * default `<tmpdir>/runlight-scaffold-<hash>`): built for production and driven in Chromium.
 *
 * `--skip-build` reuses `dist/`; `--only=install,cli,node,typescript,vite,bundle,vue,svelte,next,scaffolds`
 * picks checks, `--scaffolds=vite,next` the scaffolds.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScaffoldKind, scaffoldApp } from '../scaffolds/scaffold-apps';
import { checkNextScaffold, checkViteScaffold, launchChromium } from '../scaffolds/scaffold-checks';
import { writeSnippets } from '../snippets';
import { sh, step, timings } from '../steps';
import { checkCli } from './check-cli';
import { checkEngines } from './check-engines';
import { checkInstallLines } from './check-install-lines';
import { checkSvelteConsumer } from './check-svelte-consumer';
import { checkVueConsumer } from './check-vue-consumer';
import { CONSUMER_DEPENDENCIES, PUBLISHED } from './consumer-packages';
import { checkDocumentedSizes, reactPageSizes } from './documented-sizes';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEMPLATES = join(ROOT, 'scripts', 'consumers');
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
const SCRATCH =
  process.env.RUNLIGHT_CONSUMER_DIR ?? join(tmpdir(), `runlight-consumer-${CHECKOUT}`);
const TARBALLS = join(SCRATCH, 'tarballs');
/** The fresh-scaffold apps: outside the workspace and outside SCRATCH (its node_modules). */
const SCAFFOLDS =
  process.env.RUNLIGHT_SCAFFOLD_DIR ?? join(tmpdir(), `runlight-scaffold-${CHECKOUT}`);

const args = process.argv.slice(2);
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wants = (check: string) => only === undefined || only.includes(check);

const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const scratchBin = (name: string) => join(SCRATCH, 'node_modules', '.bin', name);

async function pack(): Promise<Map<string, string>> {
  await rm(TARBALLS, { recursive: true, force: true });
  await mkdir(TARBALLS, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const name of PUBLISHED) {
    await sh('pnpm', ['pack', '--pack-destination', TARBALLS], join(ROOT, 'packages', name));
  }
  for (const file of await readdir(TARBALLS)) {
    const name = PUBLISHED.find((candidate) => file === `runlight-${candidate}-0.1.0.tgz`);
    if (name === undefined) throw new Error(`unexpected tarball ${file}`);
    tarballs.set(`@runlight/${name}`, join(TARBALLS, file));
  }
  return tarballs;
}

/** What must not be in a tarball: tests, benches, sources, configs. */
async function checkContents(tarball: string): Promise<void> {
  const { stdout } = await sh('tar', ['tzf', tarball], SCRATCH);
  const files = stdout.trim().split('\n');
  // @runlight/svelte ships its components as `.svelte` sources (the consumer compiles them).
  const svelte = /runlight-svelte-[^/]*\.tgz$/.test(tarball) ? '|svelte' : '';
  const allowed = new RegExp(
    `^package\\/(dist\\/.+\\.(js|d\\.ts${svelte})|package\\.json|README\\.md|LICENSE|CHANGELOG\\.md)$`,
  );
  const stray = files.filter((file) => !allowed.test(file));
  if (stray.length > 0) throw new Error(`${tarball} ships ${stray.join(', ')}`);
  for (const needed of ['package/package.json', 'package/LICENSE', 'package/dist/index.js']) {
    if (!files.includes(needed)) throw new Error(`${tarball} lacks ${needed}`);
  }
}

async function lint(tarballs: Map<string, string>): Promise<void> {
  for (const [name, tarball] of tarballs) {
    await checkContents(tarball);
    const publint = await sh(bin('publint'), ['run', tarball, '--strict'], ROOT);
    if (!/All good/.test(publint.stdout)) throw new Error(`publint on ${name}:\n${publint.stdout}`);
    // ESM-only packages: attw ignores CommonJS `require` resolution, everything else must pass.
    await sh(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped'], ROOT);
  }
}

async function install(tarballs: Map<string, string>): Promise<void> {
  const runlight = Object.fromEntries(
    [...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]),
  );
  const manifest = {
    name: 'runlight-consumer-checks',
    private: true,
    type: 'module',
    dependencies: { ...runlight, ...CONSUMER_DEPENDENCIES },
    // A tarball's own `@runlight/*` ranges (`^0.1.0`) resolve to the local tarballs, not the
    // registry.
    overrides: Object.fromEntries(Object.keys(runlight).map((name) => [name, `$${name}`])),
  };
  await writeFile(join(SCRATCH, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The tarballs change every build: drop them (and the lock that pins their hashes) and let
  // npm install them again; everything else stays from the previous run.
  await rm(join(SCRATCH, 'node_modules', '@runlight'), { recursive: true, force: true });
  await rm(join(SCRATCH, 'package-lock.json'), { force: true });
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    SCRATCH,
  );
  const react = await readFile(
    join(SCRATCH, 'node_modules', '@runlight', 'react', 'dist', 'index.js'),
    'utf8',
  );
  if (!/^["']use client["'];/.test(react)) {
    throw new Error("@runlight/react's dist/index.js does not start with 'use client'");
  }
  const server = await readFile(
    join(SCRATCH, 'node_modules', '@runlight', 'react', 'dist', 'server.js'),
    'utf8',
  );
  if (/["']use client["']/.test(server)) {
    throw new Error("@runlight/react's dist/server.js must not be a client module");
  }
}

async function copyTemplate(name: string): Promise<string> {
  const target = join(SCRATCH, name);
  for (const leftover of ['.next', 'dist', 'src', 'app', 'lib']) {
    await rm(join(target, leftover), { recursive: true, force: true });
  }
  await cp(join(TEMPLATES, name), target, { recursive: true });
  return target;
}

/**
 * `tsc` with `skipLibCheck: false`, so Runlight's own declarations are checked under the
 * consumer's options. Errors inside other packages' declarations (`ai`, PGlite: theirs under
 * `exactOptionalPropertyTypes`) are counted and shown, not failed on; any error in the usage
 * file or in `node_modules/@runlight` fails.
 */
async function typecheck(cwd: string, config: string): Promise<void> {
  const output = await new Promise<string>((resolve) => {
    execFile(scratchBin('tsc'), ['-p', config, '--pretty', 'false'], { cwd }, (_error, stdout) =>
      resolve(stdout),
    );
  });
  const errors = output.split('\n').filter((line) => / error TS\d+:/.test(line));
  const ours = errors.filter(
    (line) => !line.includes('node_modules/') || line.includes('node_modules/@runlight/'),
  );
  if (ours.length > 0 || (errors.length === 0 && output.trim() !== '')) {
    throw new Error(`tsc -p ${config}:\n${ours.length > 0 ? ours.join('\n') : output}`);
  }
  const theirs = new Set(errors.map((line) => line.replace(/\(.*$/, '')));
  console.log(
    `  ${config}: no errors in Runlight or the usage file` +
      (errors.length === 0 ? '' : `; ${errors.length} in ${[...theirs].join(', ')}`),
  );
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

/** The session the guide's stand-in policy lets in (`RUNLIGHT_SESSION`). */
const SESSION = 'consumer-check-session';

async function checkNextServer(cwd: string): Promise<void> {
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [join(SCRATCH, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port)],
    {
      cwd,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', RUNLIGHT_SESSION: SESSION },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  server.stdout.on('data', (chunk) => {
    output += chunk;
  });
  server.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(origin)).ok, 60_000);
    const page = await (await fetch(origin)).text();
    if (!page.includes('data-runlight="status"')) throw new Error('the page has no RunStatus');
    if (!page.includes('data-query-key="runlight/run/next-run"')) {
      throw new Error('the server component could not call @runlight/react/server');
    }
    const start = await fetch(`${origin}/api/start`, {
      method: 'POST',
      body: JSON.stringify({ runId: 'next-run' }),
    });
    if (start.status !== 202) throw new Error(`POST /api/start answered ${start.status}`);
    // The guide's route file sees the routes at `/api/runs` and `/api/run-events` too (a
    // catch-all under `app/api/runs/` would leave them to Next's HTML 404): its policy answers.
    for (const [method, path] of [
      ['POST', '/api/runs'],
      ['GET', '/api/run-events?run=next-run'],
    ]) {
      const answer = await fetch(`${origin}${path}`, { method });
      await answer.body?.cancel();
      // The multiplexed stream refuses per run, inside its own event stream.
      const stream = answer.headers.get('content-type')?.startsWith('text/event-stream');
      if (answer.status !== 401 && !stream) {
        throw new Error(`${method} ${path} did not reach the route file (${answer.status})`);
      }
    }
    // The guide's policy: without the session cookie every run route answers 401.
    const anonymous = await fetch(`${origin}/api/runs/next-run`);
    if (anonymous.status !== 401)
      throw new Error(`a request without a session got ${anonymous.status}`);
    const signedIn = { headers: { cookie: `session=${SESSION}` } };
    const snapshot = await fetch(`${origin}/api/runs/next-run`, signedIn);
    const body = (await snapshot.json()) as { run?: { id?: string } };
    if (snapshot.status !== 200 || body.run?.id !== 'next-run') {
      throw new Error(`GET /api/runs/next-run answered ${snapshot.status}`);
    }
    // The stream ends after the finished run's terminal event.
    const events = await fetch(`${origin}/api/runs/next-run/events`, {
      ...signedIn,
      signal: AbortSignal.timeout(30_000),
    });
    if (!events.headers.get('content-type')?.startsWith('text/event-stream')) {
      throw new Error('GET /api/runs/next-run/events is not an event stream');
    }
    const stream = await events.text();
    if (!/"status":"completed"/.test(stream)) {
      throw new Error(`the event stream did not end with a completed run:\n${stream}`);
    }
    const unknown = await fetch(`${origin}/api/runs/missing-run`, signedIn);
    if (unknown.status !== 404) throw new Error(`an unknown run answered ${unknown.status}`);
  } catch (error) {
    process.stderr.write(output);
    throw error;
  } finally {
    server.kill('SIGTERM');
  }
}

async function waitFor(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await ready()) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The Next.js guide's route and runtime files are the ones `next build` checks, verbatim. */
async function checkReadme(): Promise<void> {
  const guide = await readFile(join(ROOT, 'docs', 'nextjs.md'), 'utf8');
  for (const file of ['app/api/[...path]/route.ts', 'lib/runlight.ts']) {
    const text = await readFile(join(TEMPLATES, 'next', file), 'utf8');
    if (!guide.includes(text))
      throw new Error(`docs/nextjs.md does not show next/${file} as checked`);
  }
}

const started = performance.now();
await checkReadme();
await mkdir(SCRATCH, { recursive: true });
if (!args.includes('--skip-build')) {
  await step('build (tsdown, every published package)', () => sh('pnpm', ['build'], ROOT));
}
const tarballs = await step('pnpm pack', pack);
await step('tarball contents, publint --strict, attw', () => lint(tarballs));
await step(`npm install the tarballs in ${SCRATCH}`, () => install(tarballs));
await step('engines: what each package installs accepts the Node it declares', async () => {
  const problems = await checkEngines(SCRATCH, PUBLISHED);
  if (problems.length > 0) throw new Error(`engines:\n${problems.join('\n')}`);
});
if (wants('install')) {
  await step(`README install lines, literally, with npm on Node ${process.versions.node}`, () =>
    checkInstallLines(ROOT, SCRATCH, tarballs, PUBLISHED),
  );
}
if (wants('install') || wants('cli')) {
  await step('the runlight bin from the installed tarball: npx runlight --help, tail a run', () =>
    checkCli(SCRATCH, '0.1.0'),
  );
}
if (wants('node')) {
  await step('node ESM: every entry point, a run over node:http, Hono', async () => {
    const cwd = await copyTemplate('node-esm');
    await sh(process.execPath, ['check.mjs'], cwd);
  });
}
if (wants('typescript')) {
  await step('TypeScript: NodeNext and Bundler, strict, exactOptionalPropertyTypes', async () => {
    const cwd = await copyTemplate('typescript');
    const configs = await writeSnippets(ROOT, cwd);
    await Promise.all(
      ['tsconfig.nodenext.json', 'tsconfig.bundler.json', ...configs].map((config) =>
        typecheck(cwd, config),
      ),
    );
  });
}
if (wants('vite')) {
  await step('Vite: build a page that renders RunStatus', async () => {
    const cwd = await copyTemplate('vite');
    await sh(scratchBin('vite'), ['build', '--logLevel', 'warn'], cwd);
    const assets = await readdir(join(cwd, 'dist', 'assets'));
    const script = assets.find((file) => file.endsWith('.js'));
    const bundle = script ? await readFile(join(cwd, 'dist', 'assets', script), 'utf8') : '';
    if (!bundle.includes('runlight')) throw new Error('the Vite bundle has no Runlight code');
  });
}
if (wants('bundle')) {
  await step('bundle size: what RunStatus and useChat on Runlight add to a page', async () => {
    const cwd = await copyTemplate('bundle-size');
    const { stdout } = await sh(process.execPath, ['measure.mjs'], cwd);
    process.stdout.write(stdout);
    await checkDocumentedSizes(ROOT, cwd, reactPageSizes);
  });
}
if (wants('svelte')) await checkSvelteConsumer(ROOT, tarballs);
if (wants('vue')) await checkVueConsumer(ROOT, SCRATCH, tarballs);
if (wants('next')) {
  const cwd = await step('Next.js 16 App Router: next build', async () => {
    const cwd = await copyTemplate('next');
    await sh(
      process.execPath,
      [join(SCRATCH, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'],
      cwd,
    );
    return cwd;
  });
  await step('Next.js: next start → page, snapshot, SSE', () => checkNextServer(cwd));
}
if (wants('scaffolds')) {
  await mkdir(SCAFFOLDS, { recursive: true });
  const apps = new Map<ScaffoldKind, string>();
  const kinds = (args
    .find((arg) => arg.startsWith('--scaffolds='))
    ?.slice(12)
    .split(',') ?? ['vite', 'next']) as ScaffoldKind[];
  for (const kind of kinds) {
    apps.set(
      kind,
      await step(`scaffold ${kind}: generate, paste the guide, its install lines`, () =>
        scaffoldApp(ROOT, SCAFFOLDS, kind, tarballs),
      ),
    );
  }
  const browser = await launchChromium();
  try {
    if (apps.has('vite')) await checkViteScaffold(apps.get('vite')!, browser);
    if (apps.has('next')) await checkNextScaffold(apps.get('next')!, browser);
  } finally {
    await browser.close();
  }
}
const total = (performance.now() - started) / 1000;
console.log(`\npackage checks passed in ${total.toFixed(1)} s`);
for (const [name, seconds] of timings)
  console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
