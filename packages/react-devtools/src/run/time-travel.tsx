import type { RunLog, RunLogState } from '@runlight/client';
import { useId, useState } from 'react';
import { activityText, activityThen } from './run-facts';

/**
 * A slider over the revisions the log holds: the state the client's pure reducer computes at
 * revision N from what it received — what a fresh client loaded at N shows — and the activity
 * a user saw then. Follows the newest revision until moved.
 */
export function TimeTravel({
  log,
  logState,
  recovers,
}: {
  log: RunLog;
  logState: RunLogState;
  recovers: boolean;
}) {
  // `logState` changes with every entry: the revisions are re-read then (cached by the log).
  void logState;
  const revisions = log.revisions();
  const [pinned, setPinned] = useState<number | null>(null);
  const id = useId();
  if (revisions.length === 0) {
    return <p className="rl-empty">No revision received yet.</p>;
  }
  const revision =
    pinned !== null && revisions.includes(pinned) ? pinned : (revisions.at(-1) as number);
  const index = revisions.indexOf(revision);
  const state = log.stateAt(revision);
  const activity = state === null ? null : activityThen(state);
  const text = activity === null ? 'not available' : activityText(activity, recovers);
  return (
    <div
      data-testid="runlight-devtools-travel"
      data-revision={revision}
      data-activity={activity?.kind}
      data-since={activity?.since}
      data-label={text}
    >
      <div className="rl-travel">
        <label htmlFor={`${id}-slider`}>Revision</label>
        <input
          id={`${id}-slider`}
          type="range"
          min={0}
          max={revisions.length - 1}
          step={1}
          value={index}
          aria-valuetext={`Revision ${revision}: ${text}`}
          data-testid="runlight-devtools-slider"
          onChange={(event) => setPinned(revisions[Number(event.target.value)] ?? null)}
        />
        <output htmlFor={`${id}-slider`}>
          {revision} of {revisions.at(-1)}
        </output>
        <button
          type="button"
          className="rl-button"
          disabled={pinned === null}
          onClick={() => setPinned(null)}
        >
          Follow newest
        </button>
      </div>
      <p>
        At revision {revision}:{' '}
        <strong data-testid="runlight-devtools-travel-activity">{text}</strong>
        {activity?.since === undefined ? '' : ` since ${activity.since}`}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls (axe: scrollable-region-focusable). */}
      <pre className="rl-json" data-testid="runlight-devtools-travel-state" tabIndex={0}>
        {state === null
          ? ''
          : JSON.stringify(
              { revision: state.revision, run: state.run, assistant: state.assistant },
              null,
              2,
            )}
      </pre>
    </div>
  );
}
