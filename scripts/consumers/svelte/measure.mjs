/**
 * What one RunStatus adds to a Svelte page. Builds each page of `pages/` on its own with Vite
 * (production, one page per build), sums the gzip size (level 9) of the JavaScript the page
 * loads at once, prints each page and the deltas and writes `sizes.json`.
 *
 * Pages: `baseline` (Svelte 5 alone), `client-only` (+ the headless `@runlight/client`, one run
 * store) and `run-status` (+ `RunlightProvider` and one `RunStatus`, the README's smallest use).
 *
 * Issue 41's goal — one RunStatus adds ≤ 15 KB gzip over Svelte alone — is not met: the
 * headless client alone adds about 21 KB (its snapshot and event validation is zod, through
 * `@runlight/protocol`), and React's RunStatus budget is 25 KB over its baseline for the same
 * reason. Enforced here: what the Svelte binding adds over the client it binds (≤ 15 KB,
 * `BINDING_BUDGET`) and the whole page's delta (`BUDGET`, a ceiling against regressions).
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

/**
 * What one RunStatus (client included) may add to a Svelte page, gzip: a ceiling against
 * regressions (36.5 KB measured once tab sharing, the observer and the unreachable state landed
 * in the client; issue 51's goal, ≤ 22 KB, is open).
 */
const BUDGET = 37 * 1024;
/** What the binding (provider, runes, RunStatus, its labels) may add over the client, gzip. */
const BINDING_BUDGET = 15 * 1024;

const here = fileURLToPath(new URL('.', import.meta.url));
const pages = (await readdir(join(here, 'pages'))).filter((file) => file.endsWith('.svelte'));
const sizes = {};
for (const file of pages.sort()) {
  const name = file.replace(/\.svelte$/, '');
  await writeFile(
    join(here, `${name}.entry.js`),
    `import { mount } from 'svelte';\nimport Page from './pages/${file}';\nmount(Page, { target: document.body });\n`,
  );
  await writeFile(
    join(here, `${name}.html`),
    `<!doctype html><html><body><script type="module" src="./${name}.entry.js"></script></body></html>\n`,
  );
  const output = await build({
    root: here,
    configFile: false,
    logLevel: 'warn',
    plugins: [svelte()],
    build: { write: false, rollupOptions: { input: join(here, `${name}.html`) } },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => result.output);
  const scripts = chunks.filter((chunk) => chunk.type === 'chunk');
  const eager = new Set();
  const visit = (fileName) => {
    if (eager.has(fileName)) return;
    eager.add(fileName);
    const chunk = scripts.find((candidate) => candidate.fileName === fileName);
    for (const imported of chunk?.imports ?? []) visit(imported);
  };
  for (const chunk of scripts) if (chunk.isEntry) visit(chunk.fileName);
  let gzip = 0;
  let raw = 0;
  for (const chunk of scripts) {
    if (!eager.has(chunk.fileName)) continue;
    const bytes = Buffer.from(chunk.code);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  sizes[name] = { raw, gzip };
}
await writeFile(join(here, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
for (const [name, size] of Object.entries(sizes)) {
  console.log(
    `  ${name.padEnd(12)} ${kb(size.gzip).padStart(9)} gzip  ${kb(size.raw).padStart(9)} min`,
  );
}
const added = sizes['run-status'].gzip - sizes.baseline.gzip;
const client = sizes['client-only'].gzip - sizes.baseline.gzip;
const binding = sizes['run-status'].gzip - sizes['client-only'].gzip;
console.log(
  `  RunStatus over Svelte alone: +${kb(added)} gzip (budget ${kb(BUDGET)}; goal 15 KB)\n` +
    `    of which the headless client: +${kb(client)}; the Svelte binding: +${kb(binding)} (budget ${kb(BINDING_BUDGET)})`,
);
if (added > BUDGET || binding > BINDING_BUDGET) {
  console.error(`RunStatus on a Svelte page is over its budget`);
  process.exit(1);
}
