import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

// Both entries start with 'use client'. The panel is a chunk of its own, loaded by
// `React.lazy` on first render: `index` drops even that import when the app's bundler replaces
// `process.env.NODE_ENV` with anything but 'development'; `production` keeps it.
export default defineConfig(
  libraryConfig({
    entry: { index: 'src/index.ts', production: 'src/production.ts' },
    platform: 'neutral',
  }),
);
