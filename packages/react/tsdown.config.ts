import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

// `src/index.ts` (hooks and components) starts with 'use client': the whole entry is one client
// boundary for React Server Components, and rolldown keeps the directive at the top of the
// entry chunk (scripts/packages/check-packages checks the built file). `src/server.ts` has none: its
// functions must stay callable on a React server.
export default defineConfig(
  libraryConfig({
    entry: { index: 'src/index.ts', server: 'src/server.ts' },
    platform: 'neutral',
  }),
);
