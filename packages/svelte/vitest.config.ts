import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineProject } from 'vitest/config';

/**
 * The `svelte` project of the root config (`pnpm vitest run --project svelte`): components
 * compiled by the Svelte plugin, in jsdom with the `browser` condition (Svelte's client
 * runtime); a test file marked `@vitest-environment node` renders on the server. Workspace
 * packages resolve to their sources (`@runlight/source`), as in every other project.
 */
const SOURCE_CONDITION = '@runlight/source';

export default defineProject({
  plugins: [svelte({ configFile: false })],
  resolve: {
    conditions: [SOURCE_CONDITION, 'svelte', 'module', 'browser', 'development|production'],
  },
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, 'svelte', 'module', 'node', 'development|production'],
    },
  },
  test: {
    name: 'svelte',
    root: import.meta.dirname,
    include: ['src/**/*.test.ts'],
    environment: 'jsdom',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `vi.waitFor` and `expect.poll` without a timeout of their own: bounded at 30 s, not 1 s.
    expect: { poll: { timeout: 30_000 } },
    setupFiles: [
      fileURLToPath(new URL('../../scripts/vitest/wait-for-hang-bound.ts', import.meta.url)),
    ],
  },
});
