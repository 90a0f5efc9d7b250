'use client';

export type {
  RunTimelineModel,
  TimelineGap,
  TimelineRow,
  TimelineSpan,
} from './build-run-timeline';
export { buildRunTimeline } from './build-run-timeline';
export { RunlightProviderMissingError } from './errors/runlight-provider-missing-error';
export { formatElapsed } from './format-elapsed';
export type { OperationIndicatorProps } from './operation-indicator';
export { OperationIndicator, RunlightStyle } from './operation-indicator';
export { createQuerySnapshotLoader, prefetchRun, runQueryKey, runQueryOptions } from './run-query';
export type { RunStatusProps, RunStatusRender } from './run-status';
export { RunStatus } from './run-status';
export type {
  ActivityDescription,
  RunStatusLabels,
  RunStatusLabelsInput,
} from './run-status-labels';
export {
  defaultRunStatusLabels,
  describeActivity,
  describeFailure,
  resolveRunStatusLabels,
  statusText,
} from './run-status-labels';
export type { RunTimelineProps, RunTimelineRender } from './run-timeline';
export { RunTimeline } from './run-timeline';
export type { RunlightContextValue } from './runlight-context';
export { useRunlight } from './runlight-context';
export { runlightCss } from './runlight-css';
export type { RunlightProviderProps } from './runlight-provider';
export { RunlightProvider } from './runlight-provider';
export type { RunStatusView } from './select-run-status';
export { runStatusEquals, selectRunStatus } from './select-run-status';
export type { RunView } from './select-run-view';
export { selectRunView } from './select-run-view';
export type { TimelineMoment } from './timeline-words';
export {
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  withRetryWait,
} from './timeline-words';
export type { UseElapsedOptions } from './use-elapsed';
export { useElapsed } from './use-elapsed';
export type { UseRunOptions } from './use-run';
export { useRun } from './use-run';
export { activityEquals, useRunActivity } from './use-run-activity';
export type { RunConnection } from './use-run-connection';
export { useRunConnection } from './use-run-connection';
export type { RunControls } from './use-run-controls';
export { useRunControls } from './use-run-controls';
export { useRunHistory } from './use-run-history';
export { useRunOperation } from './use-run-operation';
export type { RunStatusInfo } from './use-run-status';
export { useRunStatus } from './use-run-status';
export { useSuspenseRun } from './use-suspense-run';
