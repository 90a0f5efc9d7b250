import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

export default defineConfig(
  libraryConfig({
    entry: { index: 'src/index.ts', 'bin/migrate': 'src/bin/migrate.ts' },
    platform: 'node',
  }),
);
