import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

/** The library entry (`main`, the exit codes) and the `runlight` bin (its shebang kept). */
export default defineConfig(
  libraryConfig({ entry: { index: 'src/index.ts', bin: 'src/bin.ts' }, platform: 'node' }),
);
