/**
 * `pnpm test:packages --only=svelte` (and the full run): `@runlight/svelte` as a Svelte user
 * gets it. In a scratch app of its own outside the workspace (`$RUNLIGHT_SVELTE_CONSUMER_DIR`,
 * default `<tmpdir>/runlight-svelte-consumer-<hash of this checkout>`; its node_modules are kept
 * between runs, the Runlight tarballs installed afresh) it installs the packed tarballs with npm
 * beside Svelte 5, Vite and svelte-check, then:
 *
 * - `svelte-check` (strict, `exactOptionalPropertyTypes`, `skipLibCheck: false`): the app's
 *   components against the package's declarations (`.svelte.d.ts` included);
 * - `vite build` of a page with `RunlightProvider`, `RunStatus` and three runes — the shipped
 *   `.svelte` files compiled by the consumer's bundler (the `svelte` export condition);
 * - server rendering (`vite build --ssr`, then Node): a loaded snapshot renders the finished
 *   run's status with its time, and the render makes no request;
 * - the bundle budget: one RunStatus adds at most 15 KB gzip to a Svelte page (`measure.mjs`).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sh, step } from '../steps';
import { checkDocumentedSizes, sveltePageSizes } from './documented-sizes';

/** What the scratch Svelte app installs beside the Runlight tarballs. */
const SVELTE_CONSUMER_DEPENDENCIES: Record<string, string> = {
  svelte: '^5.59.1',
  vite: '8.3.8',
  '@sveltejs/vite-plugin-svelte': '7.3.2',
  'svelte-check': '4.7.8',
  typescript: '5.9.3',
  ai: '^7.0.173',
  zod: '^4.6.7',
};

/** The Runlight packages a Svelte app installs. */
const RUNLIGHT = ['@runlight/protocol', '@runlight/client', '@runlight/svelte'];

/** A finished run as `GET /api/runs/:id` serves it (the served form: no owner). */
const FINISHED = {
  snapshot: {
    run: {
      id: 'ssr-run',
      status: 'completed',
      owner: null,
      fencingToken: 1,
      revision: 5,
      lastOperation: null,
      failure: null,
      leaseExpiresAt: null,
      createdAt: '2026-12-02T10:00:00.000Z',
      updatedAt: '2026-12-02T10:00:07.500Z',
    },
    assistant: null,
    revision: 5,
  },
  clockOffsetMs: null,
};

const SSR_CHECK = `import { readFile } from 'node:fs/promises';
let requests = 0;
globalThis.fetch = async () => { requests++; throw new Error('the server render made a request'); };
const { renderRun } = await import('./dist-ssr/ssr.js');
const html = renderRun(JSON.parse(await readFile('finished.json', 'utf8')));
await new Promise((resolve) => setTimeout(resolve, 100));
for (const needed of ['data-runlight="status"', 'role="status"', 'aria-live="polite"', 'data-activity="completed"', '>Completed<', '>7.5 s<']) {
  if (!html.includes(needed)) throw new Error('the server render lacks ' + needed + ':\\n' + html);
}
if (requests > 0) throw new Error('the server render made ' + requests + ' requests');
console.log('  server render: ' + html.replace(/<!--.*?-->/g, '').trim());
`;

export async function checkSvelteConsumer(
  root: string,
  tarballs: Map<string, string>,
): Promise<void> {
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const scratch =
    process.env.RUNLIGHT_SVELTE_CONSUMER_DIR ??
    join(tmpdir(), `runlight-svelte-consumer-${checkout}`);
  const bin = (name: string) => join(scratch, 'node_modules', '.bin', name);
  await mkdir(scratch, { recursive: true });

  await step(`Svelte: npm install the tarballs in ${scratch}`, async () => {
    const runlight = Object.fromEntries(
      RUNLIGHT.map((name) => {
        const tarball = tarballs.get(name);
        if (tarball === undefined) throw new Error(`no tarball for ${name}`);
        return [name, `file:${tarball}`];
      }),
    );
    const manifest = {
      name: 'runlight-svelte-consumer-checks',
      private: true,
      type: 'module',
      dependencies: { ...runlight, ...SVELTE_CONSUMER_DEPENDENCIES },
      overrides: Object.fromEntries(Object.keys(runlight).map((name) => [name, `$${name}`])),
    };
    await writeFile(join(scratch, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(join(scratch, 'node_modules', '@runlight'), { recursive: true, force: true });
    await rm(join(scratch, 'package-lock.json'), { force: true });
    await sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      scratch,
    );
    for (const leftover of ['src', 'pages', 'dist', 'dist-ssr']) {
      await rm(join(scratch, leftover), { recursive: true, force: true });
    }
    await cp(join(root, 'scripts', 'consumers', 'svelte'), scratch, { recursive: true });
    await writeFile(join(scratch, 'finished.json'), JSON.stringify(FINISHED));
    await writeFile(join(scratch, 'ssr-check.mjs'), SSR_CHECK);
  });

  await step('Svelte: svelte-check (strict, exactOptionalPropertyTypes)', async () => {
    // As the TypeScript consumer check: errors inside other packages' declarations (`ai`'s,
    // under `exactOptionalPropertyTypes`) are counted, not failed on; any in the app's files or
    // in `node_modules/@runlight` fail.
    const output = await new Promise<string>((resolve) => {
      execFile(
        bin('svelte-check'),
        ['--tsconfig', './tsconfig.json', '--output', 'machine'],
        { cwd: scratch, maxBuffer: 64 * 1024 * 1024 },
        (_error, stdout) => resolve(stdout),
      );
    });
    if (!/ COMPLETED /.test(output)) throw new Error(`svelte-check did not finish:\n${output}`);
    const errors = output.split('\n').filter((line) => / ERROR "/.test(line));
    const ours = errors.filter((line) => {
      const file = /ERROR "([^"]+)"/.exec(line)?.[1] ?? '';
      return !file.startsWith('node_modules/') || file.startsWith('node_modules/@runlight/');
    });
    if (ours.length > 0) throw new Error(`svelte-check:\n${ours.join('\n')}`);
    console.log(
      `  no errors in Runlight or the app's components; ${errors.length} in other packages' declarations`,
    );
  });

  await step('Svelte: vite build of a page with RunStatus and the runes', async () => {
    await sh(bin('vite'), ['build', '--logLevel', 'warn'], scratch);
    const assets = await readdir(join(scratch, 'dist', 'assets'));
    const script = assets.find((file) => file.endsWith('.js'));
    const bundle = script ? await readFile(join(scratch, 'dist', 'assets', script), 'utf8') : '';
    if (!bundle.includes('data-runlight')) throw new Error('the Vite bundle has no RunStatus');
  });

  await step('Svelte: server rendering from a loaded snapshot, no request', async () => {
    await sh(
      bin('vite'),
      ['build', '--ssr', 'src/ssr.ts', '--outDir', 'dist-ssr', '--logLevel', 'warn'],
      scratch,
    );
    const { stdout } = await sh(process.execPath, ['ssr-check.mjs'], scratch);
    process.stdout.write(stdout);
  });

  await step('Svelte: bundle size, what one RunStatus adds to a Svelte page', async () => {
    const { stdout } = await sh(process.execPath, ['measure.mjs'], scratch);
    process.stdout.write(stdout);
    await checkDocumentedSizes(root, scratch, sveltePageSizes);
  });
}
