import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Workspace packages resolve to their sources (`@runlight/source` in each package's `exports`),
 * so tests run without a build; published packages only carry `dist/`. The rest are Vite's
 * default conditions, which `resolve.conditions` replaces rather than extends.
 */
const SOURCE_CONDITION = '@runlight/source';
const resolve = {
  conditions: [SOURCE_CONDITION, 'module', 'browser', 'development|production'],
};
/** Child processes a test starts with `node --import tsx` resolve the sources too. */
const env = {
  NODE_OPTIONS: [process.env.NODE_OPTIONS, `--conditions=${SOURCE_CONDITION}`]
    .filter(Boolean)
    .join(' '),
};
const ssr = {
  resolve: { conditions: [SOURCE_CONDITION, 'module', 'node', 'development|production'] },
};

/**
 * Fails the runtime (runner + HTTP), CLI, PostgreSQL (store + deployment) and Redis bus suites on any
 * unhandled rejection or uncaught exception: in production either one ends the process.
 */
const FAIL_ON_UNHANDLED = fileURLToPath(
  new URL('./scripts/vitest/fail-on-unhandled.ts', import.meta.url),
);

/** Every project: `vi.waitFor` without a timeout of its own is bounded at 30 s, not 1 s. */
const WAIT_FOR_HANG_BOUND = fileURLToPath(
  new URL('./scripts/vitest/wait-for-hang-bound.ts', import.meta.url),
);

/** One Vitest project per package; `pnpm test:unit` runs them all, `pnpm bench` their benches. */
const project = (
  name: string,
  root: string,
  extra: {
    environment?: 'node' | 'jsdom';
    testTimeout?: number;
    include?: string[];
    setupFiles?: string[];
  } = {},
) => ({
  resolve,
  ssr,
  test: {
    name,
    env,
    root,
    include: extra.include ?? ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    environment: extra.environment ?? 'node',
    testTimeout: extra.testTimeout ?? 30_000,
    hookTimeout: 60_000,
    // `expect.poll` without a timeout of its own: the same 30 s hang bound as `vi.waitFor`.
    expect: { poll: { timeout: 30_000 } },
    setupFiles: [WAIT_FOR_HANG_BOUND, ...(extra.setupFiles ?? [])],
    benchmark: { include: ['bench/**/*.bench.ts', 'bench/**/*.bench.tsx'] },
  },
});

/**
 * Test files run side by side in this many workers. Vitest's default is one fewer than the
 * cores — a single worker on a 2-core machine — but most of this suite waits (on timers,
 * loopback servers, PostgreSQL, Redis, Chromium): on 2 cores one worker left the machine about
 * half idle. `RUNLIGHT_TEST_WORKERS` overrides it.
 */
const WORKERS = Number(process.env.RUNLIGHT_TEST_WORKERS) || Math.max(3, availableParallelism());

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      project('protocol', './packages/protocol'),
      project('runtime', './packages/runtime', { setupFiles: [FAIL_ON_UNHANDLED] }),
      project('client', './packages/client'),
      project('react', './packages/react', { environment: 'jsdom' }),
      project('react-devtools', './packages/react-devtools', { environment: 'jsdom' }),
      project('vue', './packages/vue', { environment: 'jsdom' }),
      project('vue-status', './examples/vue-status', {
        include: ['e2e/**/*.test.ts'],
        testTimeout: 120_000,
      }),
      project('ai-sdk', './packages/ai-sdk', { environment: 'jsdom' }),
      project('ag-ui', './packages/ag-ui', { setupFiles: [FAIL_ON_UNHANDLED] }),
      project('ag-ui-example', './examples/ag-ui', {
        include: ['e2e/**/*.test.ts'],
        testTimeout: 120_000,
      }),
      project('ag-ui-assistant-ui', './examples/ag-ui-assistant-ui', {
        include: ['e2e/**/*.test.ts'],
        testTimeout: 120_000,
      }),
      // Its own config: the Svelte compiler plugin and the `svelte` / `browser` conditions.
      './packages/svelte/vitest.config.ts',
      './examples/svelte-status/vitest.config.ts',
      project('cli', './packages/cli', { setupFiles: [FAIL_ON_UNHANDLED] }),
      project('store-postgres', './packages/store-postgres', {
        testTimeout: 120_000,
        setupFiles: [FAIL_ON_UNHANDLED],
      }),
      project('bus-redis', './packages/bus-redis', {
        testTimeout: 120_000,
        setupFiles: [FAIL_ON_UNHANDLED],
      }),
      project('demo', './apps/demo', {
        include: ['e2e/**/*.test.ts', 'src/**/*.test.ts', 'server/**/*.test.ts'],
        testTimeout: 120_000,
      }),
    ],
  },
});
