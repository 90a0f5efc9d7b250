import { type RunStatusLabelsInput, statusText } from '@runlight/client';
import type { ComponentPropsWithRef } from 'react';
import { runlightStatusCss } from '../provider/runlight-css';
import { statusOptions, useRunStatus } from './use-run-status';

/** The `<span>`'s own props, `ref` included (a prop in React 19). */
export interface OperationIndicatorProps
  extends Omit<ComponentPropsWithRef<'span'>, 'children' | 'role'> {
  runId: string;
  labels?: RunStatusLabelsInput;
  /** Whether anything recovers a stalled run; default `RunlightProvider`'s `recovers`. */
  recovers?: boolean;
  /** Leave out the default styles; style `[data-runlight='indicator']` yourself. */
  unstyled?: boolean;
}

/**
 * A compact dot (or spinner while the run is busy) whose accessible name is the run's status,
 * e.g. "Waiting for the model" or "Failed: Another worker took over".
 *
 * @example
 * <OperationIndicator runId={runId} />
 */
export function OperationIndicator({
  runId,
  labels,
  recovers,
  unstyled = false,
  ...rest
}: OperationIndicatorProps) {
  const status = useRunStatus(runId, statusOptions(labels, recovers));
  const kind = status.activity.kind;
  return (
    <>
      {unstyled ? null : <RunlightStyle />}
      <span
        {...rest}
        role="img"
        aria-label={statusText(status)}
        data-runlight="indicator"
        data-activity={kind}
        data-busy={status.busy ? '' : undefined}
        data-error={status.error?.kind}
        data-load-failure={status.loadFailure ?? undefined}
      />
    </>
  );
}

/**
 * The default styles of the status components, once per document (React 19 hoists and
 * deduplicates by `href`; `RunTimeline` adds its own). For headless components that want the
 * default look of the data attributes.
 *
 * @example
 * <RunStatus runId={runId}>{(activity) => <MyLine kind={activity.kind} />}</RunStatus>
 * <RunlightStyle />
 */
export function RunlightStyle() {
  return (
    <style href="runlight-status" precedence="default">
      {runlightStatusCss}
    </style>
  );
}
