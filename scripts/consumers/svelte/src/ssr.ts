// Server rendering, as SvelteKit does it: a snapshot loaded ahead (`loadRun`) renders the
// status on the server with no request of the page's own.
import type { LoadedSnapshot } from '@runlight/client';
import { render } from 'svelte/server';
import Ssr from './Ssr.svelte';

export function renderRun(loaded: LoadedSnapshot): string {
  return render(Ssr, { props: { loaded } }).body;
}
