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
  },
});
