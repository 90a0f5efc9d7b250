import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The example's browser test: against its production build (`next build` first; `pnpm test:next`
 * at the workspace root does both). Not a project of the root config: `pnpm test:unit` builds
 * nothing, and this test needs a build.
 */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 90_000,
    // `vi.waitFor` and `expect.poll` without a timeout of their own: bounded at 30 s, not 1 s.
    expect: { poll: { timeout: 30_000 } },
    setupFiles: [
      fileURLToPath(new URL('../../scripts/vitest/wait-for-hang-bound.ts', import.meta.url)),
    ],
  },
});
