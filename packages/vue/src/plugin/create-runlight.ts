import {
  createRunlightClient,
  type DehydratedRun,
  dehydrateRun,
  type RunlightClient,
  type RunStore,
  seedRunStore,
} from '@runlight/client';
import type { App, InjectionKey } from 'vue';

export type { DehydratedRun };

/** Run snapshots by run id: what `runlight.dehydrate()` gives and `createRunlight` takes. */
export type DehydratedRuns = Readonly<Record<string, DehydratedRun>>;

export interface RunlightOptions {
  /** A client you created (`createRunlightClient`); or give `baseUrl`. */
  client?: RunlightClient;
  /** Where the run handlers are mounted, e.g. `/api`: the plugin creates the client. */
  baseUrl?: string;
  /**
   * Whether anything recovers a stalled run in this deployment (`createRunRecovery`, or another
   * worker takes expired leases over): a stalled run then reads "…— recovering". Default false.
   */
  recovers?: boolean;
  /** Snapshots the server rendered with (`dehydrate()` there): no second load in the browser. */
  snapshots?: DehydratedRuns;
}

/** The Vue plugin, and what Runlight's composables read from it. */
export interface Runlight {
  readonly client: RunlightClient;
  readonly recovers: boolean;
  /** `app.use(runlight)`. */
  install(app: App): void;
  /**
   * The store of `runId`, seeded with the server's snapshot when one was handed over and the
   * store has none yet (idempotent: the merge keeps a state it already holds).
   */
  store(runId: string): RunStore;
  /**
   * Loads the snapshot of `runId` into its store, for server rendering (`onServerPrefetch`).
   * Resolves once merged. A failed load rejects nothing: the page renders the loading state and
   * the browser loads the run itself.
   */
  prefetch(runId: string): Promise<void>;
  /** The snapshots this instance loaded or was given, to hand to the browser. */
  dehydrate(): DehydratedRuns;
}

export const RUNLIGHT_KEY: InjectionKey<Runlight> = Symbol('runlight');

/**
 * Creates Runlight's Vue plugin: one client (one live connection per run, however many
 * components show it) and, for server rendering, the snapshots that travel to the browser.
 *
 * @example
 * createApp(App).use(createRunlight({ baseUrl: '/api' })).mount('#app');
 * // Nuxt: a plugin per request, the snapshots in the payload
 * const runlight = createRunlight({ baseUrl: '/api', snapshots: nuxtApp.payload.runlight });
 */
export function createRunlight(options: RunlightOptions): Runlight {
  const client = options.client ?? clientFor(options.baseUrl);
  const handed = new Map<string, DehydratedRun>(Object.entries(options.snapshots ?? {}));
  const loaded = new Map<string, DehydratedRun>();
  const store = (runId: string): RunStore => {
    const runStore = client.run(runId);
    const given = handed.get(runId);
    if (given !== undefined) seedRunStore(runStore, given);
    return runStore;
  };
  const runlight: Runlight = {
    client,
    recovers: options.recovers ?? false,
    install(app) {
      app.provide(RUNLIGHT_KEY, runlight);
    },
    store,
    async prefetch(runId) {
      const runStore = store(runId);
      if (runStore.getState().run !== null || loaded.has(runId)) return;
      try {
        // A server's clock offset means nothing in the browser: it estimates its own.
        const { snapshot } = await client.fetchSnapshot(runId);
        seedRunStore(runStore, { snapshot, clockOffsetMs: null });
      } catch {
        return;
      }
      const dehydrated = dehydrateRun(runStore);
      if (dehydrated !== null) loaded.set(runId, dehydrated);
    },
    dehydrate: () => Object.fromEntries([...handed, ...loaded]),
  };
  return runlight;
}

function clientFor(baseUrl: string | undefined): RunlightClient {
  if (baseUrl === undefined) {
    throw new TypeError('createRunlight needs a `client` or a `baseUrl`.');
  }
  return createRunlightClient({ baseUrl });
}
