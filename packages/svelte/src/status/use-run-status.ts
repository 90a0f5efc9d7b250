import {
  type RunStatusInfo,
  type RunStatusLabelsInput,
  resolveRunStatusLabels,
  runStatusEquals,
  runStatusInfo,
  selectRunStatus,
} from '@runlight/client';
import { getRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from '../runes/maybe-getter.js';
import { type Current, selectionOf } from '../runes/run-store-of.js';

export interface UseRunStatusOptions {
  labels?: RunStatusLabelsInput | undefined;
  /** Whether anything recovers a stalled run; default the provider's `recovers` (false). */
  recovers?: boolean | undefined;
}

/**
 * The status of a run with its labels, in `.current`, without the ticking time (give `since` /
 * `until` to `useElapsed` where the time is shown). Changes when the activity, its times or
 * the error change — never on text deltas.
 *
 * @example
 * const status = useRunStatus(() => runId, () => ({ labels: { activity: { streaming: 'Schreibt…' } } }));
 * // {status.current.label}
 */
export function useRunStatus(
  runId: MaybeGetter<string>,
  options: MaybeGetter<UseRunStatusOptions> = {},
): Current<RunStatusInfo> {
  const context = getRunlightContext('useRunStatus');
  const view = selectionOf('useRunStatus', runId, selectRunStatus, runStatusEquals);
  let memo: { view: unknown; input: unknown; recovers: boolean; info: RunStatusInfo } | undefined;
  let labels:
    | {
        input: RunStatusLabelsInput | undefined;
        resolved: ReturnType<typeof resolveRunStatusLabels>;
      }
    | undefined;
  return {
    get current() {
      const { labels: input, recovers: own } = read(options);
      const recovers = own ?? context.recovers;
      const current = view.current;
      if (memo?.view === current && memo.input === input && memo.recovers === recovers) {
        return memo.info;
      }
      if (labels === undefined || labels.input !== input) {
        labels = { input, resolved: resolveRunStatusLabels(input) };
      }
      const info = runStatusInfo(current, labels.resolved, recovers);
      memo = { view: current, input, recovers, info };
      return info;
    },
  };
}
