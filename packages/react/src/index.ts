'use client';

/**
 * The client's public names whole — what a run's state means (words, status times, timeline
 * rows), the observer every binding is built on, pending approvals — then this binding's own.
 * Nothing here is a second definition of a client name.
 */
export * from '@runlight/client';
export { useCountdown } from './elapsed/use-countdown';
export type { UseElapsedOptions } from './elapsed/use-elapsed';
export { useElapsed } from './elapsed/use-elapsed';
export { RunlightProviderMissingError } from './errors/runlight-provider-missing-error';
export type { UseRunOptions } from './hooks/use-run';
export { useRun } from './hooks/use-run';
export { useRunActivity } from './hooks/use-run-activity';
export type { RunConnection } from './hooks/use-run-connection';
export { useRunConnection } from './hooks/use-run-connection';
export type { RunControlResult, RunControls } from './hooks/use-run-controls';
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
  RetrySchedule,
  RunStatusInfo,
  UseRunStatusOptions,
} from './status/use-run-status';
export { useRecovers, useRunStatus } from './status/use-run-status';
export type { RunTimelineProps, RunTimelineRender } from './timeline/run-timeline';
export { RunTimeline } from './timeline/run-timeline';
