import { defineConfig } from 'vitest/config';

/** One Vitest project per package; `pnpm test:unit` runs them all, `pnpm bench` their benches. */
const project = (
  name: string,
  root: string,
  extra: { environment?: 'node' | 'jsdom'; testTimeout?: number; include?: string[] } = {},
) => ({
  test: {
    name,
    root,
    include: extra.include ?? ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    environment: extra.environment ?? 'node',
    testTimeout: extra.testTimeout ?? 30_000,
    hookTimeout: 60_000,
    benchmark: { include: ['bench/**/*.bench.ts', 'bench/**/*.bench.tsx'] },
  },
});

export default defineConfig({
  test: {
    projects: [
      project('protocol', './packages/protocol'),
      project('runtime', './packages/runtime'),
      project('client', './packages/client'),
      project('react', './packages/react', { environment: 'jsdom' }),
      project('ai-sdk', './packages/ai-sdk', { environment: 'jsdom' }),
      project('store-postgres', './packages/store-postgres', { testTimeout: 120_000 }),
      project('demo', './apps/demo', {
        include: ['e2e/**/*.test.ts', 'src/**/*.test.ts', 'server/**/*.test.ts'],
        testTimeout: 120_000,
      }),
    ],
  },
});
