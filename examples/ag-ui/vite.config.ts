import { defineConfig } from 'vite';

// The workspace packages' sources (their `@runlight/source` export): no build step.
export default defineConfig({
  resolve: { conditions: ['@runlight/source', 'module', 'browser', 'development|production'] },
});
