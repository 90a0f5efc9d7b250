import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Vite dependency cache of this test worker's own: the e2e files run in parallel workers, and
 * dev servers sharing one cache invalidate each other's pages when one re-optimizes. One folder
 * per worker slot (`VITEST_POOL_ID`), so they stay few and warm from run to run.
 */
export const e2eViteCacheDir = (): string =>
  join(
    fileURLToPath(new URL('..', import.meta.url)),
    'node_modules',
    `.vite-e2e-${process.env.VITEST_POOL_ID ?? process.pid}`,
  );
