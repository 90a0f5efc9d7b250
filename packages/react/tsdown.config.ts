import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

// Every export is a hook or a component: the whole entry is one client boundary for React
// Server Components (Next.js App Router). `src/index.ts` starts with 'use client', which
// rolldown keeps at the top of the entry chunk (scripts/check-packages checks the built file).
export default defineConfig(
  libraryConfig({ entry: { index: 'src/index.ts' }, platform: 'neutral' }),
);
