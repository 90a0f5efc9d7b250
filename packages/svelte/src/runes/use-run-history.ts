import {
  buildRunTimeline,
  type RunHistory,
  type RunHistoryState,
  type RunTimelineModel,
  runHistoryOf,
} from '@runlight/client';
import { createSubscriber } from 'svelte/reactivity';
import { getRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from './maybe-getter.js';
import type { Current } from './run-store-of.js';

/** A history readable in reactive contexts: subscribed while some effect reads it. */
const subscribers = new WeakMap<RunHistory, () => void>();
function readHistory(history: RunHistory): RunHistoryState {
  let subscribe = subscribers.get(history);
  if (subscribe === undefined) {
    subscribe = createSubscriber((update) => history.subscribe(update));
    subscribers.set(history, subscribe);
  }
  subscribe();
  return history.getState();
}

/**
 * The operation history of a run: every `run-operation` event, once, in revision order, with
 * the original server timestamps — loaded from `GET …/runs/:id/operations` when the first
 * component shows it and merged with the run's live events afterwards. A status display
 * never needs it; a timeline does.
 *
 * @example
 * const history = useRunHistory(() => runId); // history.current.operations, .status
 */
export function useRunHistory(runId: MaybeGetter<string>): Current<RunHistoryState> {
  const { client } = getRunlightContext('useRunHistory');
  return {
    get current() {
      return readHistory(runHistoryOf(client, read(runId)));
    },
  };
}

const timelines = new WeakMap<RunHistoryState, RunTimelineModel>();

/**
 * The run's timeline — rows (operations and the waits between them), spans and the one in
 * flight — built by the client's `buildRunTimeline` from `useRunHistory`, the same rows
 * React's `RunTimeline` draws; the words for them are the client's `describeSpanHeading`,
 * `describeSpanResult` and `describeGap`.
 *
 * @example
 * const timeline = useRunTimeline(() => runId);
 * // {#each timeline.current.rows as row}…{/each}
 */
export function useRunTimeline(runId: MaybeGetter<string>): Current<RunTimelineModel> {
  const history = useRunHistory(runId);
  return {
    get current() {
      const state = history.current;
      let model = timelines.get(state);
      if (model === undefined) {
        model = buildRunTimeline(state.operations);
        timelines.set(state, model);
      }
      return model;
    },
  };
}
