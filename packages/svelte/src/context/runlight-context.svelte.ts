import { type LoadedSnapshot, type RunlightClient, seedRunStore } from '@runlight/client';
import { getContext, hasContext, setContext } from 'svelte';
import { RunlightProviderMissingError } from './provider-missing-error.js';

/** What `RunlightProvider` (or `setRunlightContext`) hands to the runes and components below. */
export interface RunlightContextValue {
  readonly client: RunlightClient;
  /** Whether anything recovers a stalled run here (the provider's `recovers`). */
  readonly recovers: boolean;
  /** The status components that want the default styles; the first one renders them. */
  readonly styleClaims: number[];
}

const KEY = Symbol.for('runlight.svelte.context');

/**
 * Makes `client` available to every Runlight rune and component below the calling component
 * (call it during a component's initialisation, e.g. in the root layout). `snapshots` seeds the
 * client's stores with snapshots loaded ahead (`loadRun` in a SvelteKit `load`), so the page
 * renders them on the server and the browser hydrates without loading them again.
 *
 * @example
 * setRunlightContext(createRunlightClient({ baseUrl: '/api' }));
 */
export function setRunlightContext(
  client: RunlightClient,
  options: RunlightContextOptions = {},
): RunlightContextValue {
  return setContext(KEY, contextValue(client, options));
}

export interface RunlightContextOptions {
  /** Whether anything recovers a stalled run (a value, or a getter that may change); default false. */
  recovers?: boolean | (() => boolean);
  /** Snapshots loaded ahead (`loadRun`), merged into their stores at once. */
  snapshots?: readonly LoadedSnapshot[];
}

function contextValue(client: RunlightClient, options: RunlightContextOptions) {
  for (const loaded of options.snapshots ?? []) seedRun(client, loaded);
  const styleClaims = $state<number[]>([]);
  const { recovers = false } = options;
  return {
    client,
    get recovers() {
      return typeof recovers === 'function' ? recovers() : recovers;
    },
    styleClaims,
  };
}

/**
 * The context `setRunlightContext` sets, as a `Map` for `mount(App, { target, context })` or
 * `render(App, { context })` — for an app mounted without a `RunlightProvider` around it.
 *
 * @example
 * mount(App, { target, context: createRunlightContext(createRunlightClient({ baseUrl: '/api' })) });
 */
export function createRunlightContext(
  client: RunlightClient,
  options: RunlightContextOptions = {},
): Map<symbol, RunlightContextValue> {
  return new Map([[KEY, contextValue(client, options)]]);
}

/** The nearest Runlight context, or `undefined` without one (during initialisation). */
export function findRunlightContext(): RunlightContextValue | undefined {
  return hasContext(KEY) ? getContext<RunlightContextValue>(KEY) : undefined;
}

/**
 * The nearest Runlight context; throws `RunlightProviderMissingError` naming `hook` without one.
 * Call it during a component's initialisation.
 *
 * @example
 * const { client } = getRunlightContext('MyRunWidget');
 */
export function getRunlightContext(hook = 'getRunlightContext'): RunlightContextValue {
  const value = findRunlightContext();
  if (value === undefined) throw new RunlightProviderMissingError(hook);
  return value;
}

/**
 * Merges a snapshot loaded ahead into its run's store, unless the store already holds a state
 * or failed (idempotent: the server render and the hydrating browser seed the same). The
 * store's connection then resumes from the snapshot's cursor without loading it again, and a
 * finished run opens no connection at all.
 *
 * @example
 * seedRun(client, await loadRun({ baseUrl: '/api', fetch }, 'run-1'));
 */
export function seedRun(client: RunlightClient, loaded: LoadedSnapshot): void {
  seedRunStore(client.run(loaded.snapshot.run.id), loaded);
}
