import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

export default defineConfig(libraryConfig({ entry: { index: 'src/index.ts' }, platform: 'node' }));
