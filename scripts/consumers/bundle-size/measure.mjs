/**
 * What Runlight adds to a browser page. Builds each page of `pages/` on its own with Vite
 * (production, one page per build, so no chunk is shared between them), sums the gzip size
 * (level 9) of the JavaScript the page loads at once (its entry and static imports; lazy chunks
 * are shown apart), prints each page and the deltas, and writes `sizes.json`.
 *
 * Run by `pnpm test:packages` against the packed tarballs; there it fails when one RunStatus
 * (`run-status`) adds more than `BUDGET` over the React + TanStack Query page (`baseline`), and
 * when `<RunlightDevtools />` adds more than `DEVTOOLS_OFF_BUDGET` (or any lazy chunk) to it.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

/**
 * What one RunStatus may add to a React + TanStack Query page, gzip: 25 KB (issue 24), plus
 * 0.5 KB since issue 39's coalesced delta messages and the words every binding shares moved into
 * the client (25.2 KB then). Two fifths of it is zod and the protocol's schemas, which validate
 * every snapshot and event the page receives. Plus 3.2 KB since issue 48: tabs share one
 * event stream (`@runlight/client` `src/tabs/`, on by default — the seventh tab of a profile
 * loads at all), measured as the client bundle with and without it (esbuild, minified). Plus
 * 0.25 KB since issue 45: the planned hand-off as a fact the client validates (`RunHandOffSchema`
 * on the run and its status events), the `handing-off` activity and its words — the page
 * measured 29,460 B then, 20 B over the 28.75 KB before. Plus 1.9 KB since the observer, the
 * unreachable / waiting / unknown-run connection states and their timeouts, the controls' state
 * and the sent-request hook landed together (issues 45, 47, 48): 30.2 KB measured. Issue 51's
 * goal (≤ 20 KB) is open; this is a ceiling against regressions, not the goal.
 */
const BUDGET = 31 * 1024;
/** What `<RunlightDevtools />` may add to a production build, gzip: a component that renders nothing. */
const DEVTOOLS_OFF_BUDGET = 128;

const here = fileURLToPath(new URL('.', import.meta.url));
const pages = (await readdir(join(here, 'pages'))).filter((file) => file.endsWith('.tsx')).sort();
const sizes = {};
for (const file of pages) {
  const name = file.replace(/\.tsx$/, '');
  const html = `${name}.html`;
  await writeFile(
    join(here, html),
    `<!doctype html><html><body><div id="root"></div><script type="module" src="./pages/${file}"></script></body></html>\n`,
  );
  const output = await build({
    root: here,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: { write: false, rollupOptions: { input: join(here, html) } },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => result.output);
  const scripts = chunks.filter((chunk) => chunk.type === 'chunk');
  // What the page loads at once: the entry and its static imports, not lazy chunks.
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
  let lazy = 0;
  for (const chunk of scripts) {
    const bytes = Buffer.from(chunk.code);
    if (eager.has(chunk.fileName)) {
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
    } else {
      lazy += gzipSync(bytes, { level: 9 }).length;
    }
  }
  sizes[name] = { raw, gzip, lazy };
}
await writeFile(join(here, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const delta = (page, over) => sizes[page].gzip - sizes[over].gzip;
for (const [name, size] of Object.entries(sizes)) {
  console.log(
    `  ${name.padEnd(18)} ${kb(size.gzip).padStart(9)} gzip  ${kb(size.raw).padStart(9)} min` +
      (size.lazy > 0 ? `  (+${kb(size.lazy)} gzip lazy)` : ''),
  );
}
console.log(
  `  RunStatus over React + TanStack Query: +${kb(delta('run-status', 'baseline'))} gzip\n` +
    `  useChat on Runlight (+ RunStatus) over useChat: +${kb(delta('use-chat-runlight', 'use-chat'))} gzip`,
);
console.log(
  `  RunlightDevtools in production: +${delta('run-status-devtools', 'run-status')} B gzip, ` +
    `${sizes['run-status-devtools'].lazy} B lazy; from /production: ` +
    `+${kb(delta('run-status-devtools-production', 'run-status'))} gzip ` +
    `(+${kb(sizes['run-status-devtools-production'].lazy)} gzip lazy)`,
);
// The devtools are off in a production build, and free of weight there (issue 40): what stays
// is the import of a component that renders nothing, no chunk of the panel at all.
const devtools = delta('run-status-devtools', 'run-status');
if (devtools > DEVTOOLS_OFF_BUDGET || sizes['run-status-devtools'].lazy > 0) {
  console.error(
    `RunlightDevtools adds ${devtools} B gzip and ${sizes['run-status-devtools'].lazy} B of lazy chunks to a production build: over the ${DEVTOOLS_OFF_BUDGET} B budget`,
  );
  process.exit(1);
}
const added = delta('run-status', 'baseline');
if (added > BUDGET) {
  console.error(
    `RunStatus adds ${kb(added)} gzip to a React + TanStack Query page: over the ${kb(BUDGET)} budget`,
  );
  process.exit(1);
}
