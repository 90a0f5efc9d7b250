import type { RunSnapshot } from '@runlight/protocol';
import type { RunStore } from '../run-store';

/**
 * A snapshot a server rendered with, as it travels to the browser (JSON: a framework's page
 * payload, a query cache, a script tag). `clockOffsetMs` is the browser's estimate, so one a
 * server measured travels as `null`.
 */
export interface DehydratedRun {
  readonly snapshot: RunSnapshot;
  readonly clockOffsetMs: number | null;
}

/**
 * Merges a snapshot loaded ahead (server rendering, a query cache) into its run's store —
 * unless the store already holds a state or failed, so the server render, the hydrating browser
 * and a second render all seed the same, and a bad snapshot (which sets `state.error`) is not
 * tried again. The store's connection then resumes from the snapshot's cursor without loading
 * it again. Returns whether it merged. The one seeding of every binding.
 *
 * @example
 * seedRunStore(client.run(runId), dehydrated); // in render: idempotent
 */
export function seedRunStore(
  store: RunStore,
  loaded: { readonly snapshot: unknown; readonly clockOffsetMs?: number | null | undefined },
): boolean {
  const state = store.getState();
  if (state.run !== null || state.error !== null) return false;
  return store.applySnapshot(loaded.snapshot, { clockOffsetMs: loaded.clockOffsetMs ?? null });
}

/**
 * What a server hands to the browser for `runId`'s store: its durable state as a snapshot
 * (never a live delta), with no clock offset (the server's means nothing in a browser); `null`
 * while the store holds no run. `seedRunStore` takes it on the other side.
 *
 * @example
 * const payload = { [runId]: dehydrateRun(client.run(runId)) };
 */
export function dehydrateRun(store: RunStore): DehydratedRun | null {
  const { run, assistant } = store.getState();
  if (run === null) return null;
  // A snapshot's revision is its run's (the schema checks it).
  return { snapshot: { run, assistant, revision: run.revision }, clockOffsetMs: null };
}
