import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

// The workspace packages' sources (their `@runlight/source` export): no build step.
export default defineConfig({
  plugins: [vue()],
  resolve: { conditions: ['@runlight/source', 'module', 'browser', 'development|production'] },
});
