import type { UserConfig } from 'tsdown';

/**
 * The build of one published package: ESM with `.d.ts` beside it in `dist/` (the paths the
 * package's `exports` name), bundled per entry point; dependencies and peers stay imports.
 * Why tsdown: rolldown + rolldown-plugin-dts bundle the JavaScript and the declarations in one
 * pass, and its `exports` / `publint` / `attw` conventions match ours; tsdown 0.21 is the last
 * line that runs on Node 20.
 */
export function libraryConfig(options: {
  entry: Record<string, string>;
  platform: 'node' | 'neutral';
}): UserConfig {
  return {
    entry: options.entry,
    format: 'esm',
    platform: options.platform,
    target: 'es2022',
    outDir: 'dist',
    fixedExtension: false,
    tsconfig: '../../tsconfig.build.json',
    dts: true,
    clean: true,
    checks: { pluginTimings: false },
  };
}
