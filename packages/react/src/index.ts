'use client';

export { formatElapsed } from './elapsed/format-elapsed';
export { useCountdown } from './elapsed/use-countdown';
export type { UseElapsedOptions } from './elapsed/use-elapsed';
export { useElapsed } from './elapsed/use-elapsed';
export { RunlightProviderMissingError } from './errors/runlight-provider-missing-error';
export type { RunView } from './hooks/select-run-view';
export { selectRunView } from './hooks/select-run-view';
export type { UseRunOptions } from './hooks/use-run';
export { useRun } from './hooks/use-run';
export { activityEquals, useRunActivity } from './hooks/use-run-activity';
export type { RunConnection } from './hooks/use-run-connection';
export { useRunConnection } from './hooks/use-run-connection';
export type { RunControls } from './hooks/use-run-controls';
export { useRunControls } from './hooks/use-run-controls';
export { useRunHistory } from './hooks/use-run-history';
export { useRunOperation } from './hooks/use-run-operation';
export { useSuspenseRun } from './hooks/use-suspense-run';
export {
  createQuerySnapshotLoader,
  prefetchRun,
  runQueryKey,
  runQueryOptions,
} from './provider/run-query';
export type { RunlightContextValue } from './provider/runlight-context';
export { useRunlight } from './provider/runlight-context';
export { runlightCss } from './provider/runlight-css';
export type { RunlightProviderProps } from './provider/runlight-provider';
export { RunlightProvider } from './provider/runlight-provider';
export type { OperationIndicatorProps } from './status/operation-indicator';
export { OperationIndicator, RunlightStyle } from './status/operation-indicator';
export type { RunStatusProps, RunStatusRender } from './status/run-status';
export { RunStatus } from './status/run-status';
export type {
  ActivityContext,
  ActivityDescription,
  RunStatusLabels,
  RunStatusLabelsInput,
} from './status/run-status-labels';
export {
  defaultRunStatusLabels,
  describeActivity,
  describeFailure,
  resolveRunStatusLabels,
  statusText,
} from './status/run-status-labels';
export type { RunStatusView } from './status/select-run-status';
export { runStatusEquals, selectRunStatus } from './status/select-run-status';
export type {
  RetrySchedule,
  RunLoadFailure,
  RunStatusInfo,
  UseRunStatusOptions,
} from './status/use-run-status';
export { loadFailureOf, useRecovers, useRunStatus } from './status/use-run-status';
export type {
  RunTimelineModel,
  TimelineGap,
  TimelineRow,
  TimelineSpan,
} from './timeline/build-run-timeline';
export { buildRunTimeline } from './timeline/build-run-timeline';
export type { RunTimelineProps, RunTimelineRender } from './timeline/run-timeline';
export { RunTimeline } from './timeline/run-timeline';
export type { TimelineMoment } from './timeline/timeline-words';
export {
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  withRetryWait,
} from './timeline/timeline-words';
