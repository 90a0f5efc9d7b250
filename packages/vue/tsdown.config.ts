import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

// Components are `defineComponent` + `h()` render functions in .ts: no SFC compiler in the build.
export default defineConfig(
  libraryConfig({ entry: { index: 'src/index.ts' }, platform: 'neutral' }),
);
