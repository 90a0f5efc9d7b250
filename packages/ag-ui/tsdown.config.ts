import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

export default defineConfig(
  libraryConfig({
    entry: { index: 'src/index.ts', 'client/index': 'src/client/index.ts' },
    platform: 'neutral',
  }),
);
