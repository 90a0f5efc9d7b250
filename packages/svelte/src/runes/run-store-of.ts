import type { RunState } from '@runlight/client';
import { getRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from './maybe-getter.js';
import { StoreSelection } from './store-selection.js';

/** What a rune's `current` follows: a reactive value read through a getter. */
export interface Current<T> {
  readonly current: T;
}

/**
 * A `Current` of `select` over the store of `runId` (a value or a getter: a changed id
 * follows the new run's store, and the old one is released). Call during a component's
 * initialisation; `hook` names the caller in the missing-context error.
 */
export function selectionOf<T>(
  hook: string,
  runId: MaybeGetter<string>,
  select: (state: RunState) => T,
  isEqual?: (a: T, b: T) => boolean,
): Current<T> {
  const { client } = getRunlightContext(hook);
  // One selection per run id: the last one is kept while the id stays the same.
  let last: { runId: string; selection: StoreSelection<T> } | undefined;
  const selectionFor = (id: string): StoreSelection<T> => {
    if (last?.runId !== id) {
      last = { runId: id, selection: new StoreSelection(client.run(id), select, isEqual) };
    }
    return last.selection;
  };
  return {
    get current() {
      return selectionFor(read(runId)).current;
    },
  };
}
