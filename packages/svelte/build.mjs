// The build of @runlight/svelte: `svelte-package` (the Svelte convention) — `.svelte` files
// copied for the consumer's bundler to compile, `.ts` and `.svelte.ts` (runes) compiled to
// `.js`, declarations beside each (`.svelte.d.ts` for components). Tests are not shipped.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
execFileSync('svelte-package', ['--input', 'src', '--output', 'dist', '--tsconfig', 'tsconfig.json'], {
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
rmSync('dist/__tests__', { recursive: true, force: true });
