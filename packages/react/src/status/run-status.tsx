import type { Activity, RunStatusLabels, RunStatusLabelsInput } from '@runlight/client';
import { formatElapsed } from '@runlight/client';
import { type ComponentPropsWithRef, type ReactNode, useMemo } from 'react';
import { useCountdown } from '../elapsed/use-countdown';
import { useElapsed } from '../elapsed/use-elapsed';
import { renderAsChild } from './as-child';
import { RunlightStyle } from './operation-indicator';
import { type RunStatusInfo, statusOptions, useRunStatus } from './use-run-status';

export type RunStatusRender = (
  activity: Activity,
  elapsedMs: number | null,
  status: RunStatusInfo,
) => ReactNode;

/**
 * The live region's own props (`ref` included: a prop in React 19) go to its `<div>`, or with
 * `asChild` to the child element.
 */
export interface RunStatusProps extends Omit<ComponentPropsWithRef<'div'>, 'children' | 'role'> {
  runId: string;
  /** Texts to replace (i18n); merged over `defaultRunStatusLabels`. */
  labels?: RunStatusLabelsInput;
  /**
   * Whether anything recovers a stalled run (a stalled run then reads
   * `labels.stalledRecovering`); default `RunlightProvider`'s `recovers`, false.
   */
  recovers?: boolean;
  /** How the elapsed time is written; default `formatElapsed`. */
  formatElapsed?: (ms: number) => string;
  /** Leave out the default styles; the data attributes stay for your own. */
  unstyled?: boolean;
  /** Render as the single child element (it keeps the live-region attributes). */
  asChild?: boolean;
  /** Headless: render the content yourself; the live region around it stays. */
  children?: ReactNode | RunStatusRender;
}

/**
 * A run's status line: a label for every activity (failure codes in words), the time since the
 * server's original timestamp, and `role="status"` / `aria-live="polite"`. The ticking time is
 * `aria-hidden` so screen readers hear the status changes, not every second. Re-renders on
 * activity changes only; just the time re-renders on ticks.
 *
 * @example
 * <RunStatus runId={runId} />
 * <RunStatus runId={runId}>{(activity, ms) => <MyBadge kind={activity.kind} ms={ms} />}</RunStatus>
 * <RunStatus runId={runId} asChild><p className="status" /></RunStatus>
 */
export function RunStatus({
  runId,
  labels,
  recovers,
  formatElapsed: format = formatElapsed,
  unstyled = false,
  asChild = false,
  children,
  ...rest
}: RunStatusProps) {
  const status = useRunStatus(runId, statusOptions(labels, recovers));
  const regionProps = {
    ...rest,
    role: 'status',
    'aria-live': 'polite' as const,
    'data-runlight': 'status',
    'data-activity': status.activity.kind,
    'data-failure': status.activity.failure?.code,
    'data-error': status.error?.kind,
    'data-load-failure': status.loadFailure ?? undefined,
    // The server cannot be reached: what is shown is the last known (the styles mark it).
    'data-connection': status.connectionIssue === 'unreachable' ? 'unreachable' : undefined,
  };
  const content =
    typeof children === 'function' ? (
      <RenderStatus status={status} render={children} />
    ) : asChild ? null : (
      (children ?? <StatusContent status={status} format={format} labels={status.labels} />)
    );
  const style = unstyled ? null : <RunlightStyle />;
  if (asChild) {
    const inner = content ?? (
      <StatusContent status={status} format={format} labels={status.labels} />
    );
    return (
      <>
        {style}
        {renderAsChild(children as ReactNode, regionProps, inner)}
      </>
    );
  }
  return (
    <>
      {style}
      <div {...regionProps}>{content}</div>
    </>
  );
}

function StatusContent({
  status,
  format,
  labels,
}: {
  status: RunStatusInfo;
  format: (ms: number) => string;
  labels: RunStatusLabels;
}) {
  if (status.retry !== undefined) {
    return (
      <>
        <span
          aria-hidden="true"
          data-runlight="indicator"
          data-activity={status.activity.kind}
          data-busy=""
        />
        {/* Announced once; the ticking countdown beside it is hidden from screen readers. */}
        <span data-runlight-part="label" style={VISUALLY_HIDDEN}>
          {status.label}
        </span>
        <RetryCountdown retry={status.retry} status={status} labels={labels} />
      </>
    );
  }
  return (
    <>
      <span
        aria-hidden="true"
        data-runlight="indicator"
        data-activity={status.activity.kind}
        data-busy={status.busy ? '' : undefined}
      />
      <span data-runlight-part="label">{status.label}</span>
      {status.detail === undefined ? null : (
        <span data-runlight-part="detail">{status.detail}</span>
      )}
      {status.since === undefined ? null : <ElapsedText status={status} format={format} />}
    </>
  );
}

function ElapsedText({
  status,
  format,
}: {
  status: RunStatusInfo;
  format: (ms: number) => string;
}) {
  const ms = useElapsed(status.since, {
    until: status.until ?? null,
    clockOffsetMs: status.clockOffsetMs,
  });
  const text = useMemo(() => (ms === null ? null : format(ms)), [ms, format]);
  if (text === null) return null;
  return (
    <span aria-hidden="true" data-runlight-part="elapsed">
      {text}
    </span>
  );
}

/** Hidden on screen, read by screen readers (works with `unstyled` too). */
const VISUALLY_HIDDEN = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

function RetryCountdown({
  retry,
  status,
  labels,
}: {
  retry: NonNullable<RunStatusInfo['retry']>;
  status: RunStatusInfo;
  labels: RunStatusLabels;
}) {
  const seconds = useCountdown(retry.at, { clockOffsetMs: status.clockOffsetMs });
  if (seconds === null) return null;
  return (
    <span aria-hidden="true" data-runlight-part="countdown">
      {labels.retryCountdown(seconds, retry.attempt, retry.maxAttempts)}
    </span>
  );
}

function RenderStatus({ status, render }: { status: RunStatusInfo; render: RunStatusRender }) {
  const ms = useElapsed(status.since, {
    until: status.until ?? null,
    clockOffsetMs: status.clockOffsetMs,
  });
  return render(status.activity, ms, status);
}
