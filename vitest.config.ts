import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'protocol',
          root: './packages/protocol',
          include: ['src/**/*.test.ts'],
          benchmark: { include: ['bench/**/*.bench.ts'] },
        },
      },
      {
        test: {
          name: 'runtime',
          root: './packages/runtime',
          include: ['src/**/*.test.ts'],
          testTimeout: 30_000,
          benchmark: { include: ['bench/**/*.bench.ts'] },
        },
      },
      {
        test: {
          name: 'client',
          root: './packages/client',
          include: ['src/**/*.test.ts'],
          testTimeout: 30_000,
          benchmark: { include: ['bench/**/*.bench.ts'] },
        },
      },
    ],
  },
});
