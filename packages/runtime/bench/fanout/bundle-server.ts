import { mkdir, mkdtemp } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsdown';

/**
 * A bench entry (`fanout-server.ts`, `throughput.ts`), bundled as users run Runlight: one ESM
 * build of it and everything it imports (the workspace sources and their dependencies), with no `keepNames`.
 * Run from source through tsx instead, every closure created at runtime gets a redefined
 * `name` (esbuild's `__name` helper), which turns it into a dictionary-mode function: 6 per
 * idle watcher, about 2.5 KB of heap with their hidden classes, that no user's process holds.
 *
 * @example
 * const server = await bundleEntry('fanout-server'); // the .mjs to fork
 */
export async function bundleEntry(name: 'fanout-server' | 'throughput'): Promise<string> {
  // Beside store-postgres's dependencies: `pg` stays outside the bundle (its pool does not
  // survive bundling) and resolves from there.
  const cache = fileURLToPath(
    new URL('../../../store-postgres/node_modules/.cache/', import.meta.url),
  );
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, 'runlight-fanout-'));
  await build({
    entry: { [name]: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)) },
    outDir,
    format: 'esm',
    platform: 'node',
    dts: false,
    logLevel: 'silent',
    config: false,
    // Everything in one build but node's builtins and `pg` (and its optional native binding).
    external: [/^pg(-native)?$/, /^node:/, ...builtinModules],
    noExternal: [/.*/],
    inputOptions: {
      resolve: { conditionNames: ['@runlight/source', 'import', 'node', 'default'] },
    },
  });
  return join(outDir, `${name}.mjs`);
}
