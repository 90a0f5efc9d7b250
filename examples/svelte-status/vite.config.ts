import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

/** Workspace packages from their sources (`@runlight/source`), as the other apps. */
export default defineConfig({
  plugins: [svelte()],
  resolve: {
    conditions: ['@runlight/source', 'svelte', 'module', 'browser', 'development|production'],
  },
});
