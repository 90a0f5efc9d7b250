import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

/**
 * The example's browser test (`pnpm vitest run --project svelte-status`): its own server (the
 * real runtime and Vite in middleware mode) on loopback, driven in Chromium. Node resolves the
 * workspace packages from their sources, as the other projects do.
 */
export default defineProject({
  resolve: { conditions: ['@runlight/source', 'module', 'node', 'development|production'] },
  ssr: {
    resolve: { conditions: ['@runlight/source', 'module', 'node', 'development|production'] },
  },
  test: {
    name: 'svelte-status',
    root: import.meta.dirname,
    include: ['e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 90_000,
    // `vi.waitFor` and `expect.poll` without a timeout of their own: bounded at 30 s, not 1 s.
    expect: { poll: { timeout: 30_000 } },
    setupFiles: [
      fileURLToPath(new URL('../../scripts/vitest/wait-for-hang-bound.ts', import.meta.url)),
    ],
  },
});
