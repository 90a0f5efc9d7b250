// The build of @runlight/svelte: `svelte-package` (the Svelte convention) — `.svelte` files
// copied for the consumer's bundler to compile, `.ts` and `.svelte.ts` (runes) compiled to
// `.js`, declarations beside each (`.svelte.d.ts` for components). Tests are not shipped.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

rmSync('dist', { recursive: true, force: true });
execFileSync(
  'svelte-package',
  ['--input', 'src', '--output', 'dist', '--tsconfig', 'tsconfig.json'],
  { stdio: 'inherit', shell: process.platform === 'win32' },
);
rmSync('dist/__tests__', { recursive: true, force: true });
rmSync('.svelte-kit', { recursive: true, force: true });

// In the declarations, a component import names its `.svelte.d.ts` the way Node's own type
// resolution (`moduleResolution: node16`) finds it: `./RunStatus.svelte.js`. The JavaScript
// keeps `./RunStatus.svelte` — the file the consumer's bundler compiles.
for (const file of readdirSync('dist', { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue;
  const path = join('dist', file);
  const text = readFileSync(path, 'utf8');
  const fixed = text.replace(/(from\s+'\.{1,2}\/[^']+\.svelte)'/g, "$1.js'");
  if (fixed !== text) writeFileSync(path, fixed);
}
