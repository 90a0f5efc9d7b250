/**
 * `@runlight/vue`: Vue 3 bindings for `@runlight/client`. What a run's state means — its words,
 * status times and timeline rows — is framework-free and lives in `@runlight/client`; these
 * names are importable from here too, so a Vue app and a React app word a run the same.
 */
export type {
  ActivityDescription,
  PendingApproval,
  RunLoadFailure,
  RunStatusDescription,
  RunStatusLabels,
  RunStatusLabelsInput,
  RunStatusView,
  RunTimelineModel,
  TimelineGap,
  TimelineRow,
  TimelineSpan,
} from '@runlight/client';
export {
  buildRunTimeline,
  defaultRunStatusLabels,
  describeActivity,
  describeGap,
  describeRunStatus,
  describeSpanHeading,
  describeSpanResult,
  formatElapsed,
  pendingApprovals,
  resolveRunStatusLabels,
  selectRunStatus,
  statusText,
} from '@runlight/client';
export type { RunView } from './composables/select-run-view';
export { selectRunView } from './composables/select-run-view';
export type { RunConnection, UseRunOptions } from './composables/use-run';
export {
  useRun,
  useRunActivity,
  useRunConnection,
  useRunOperation,
} from './composables/use-run';
export type { RunControlResult, RunControls } from './composables/use-run-controls';
export { useRunControls } from './composables/use-run-controls';
export { useRunHistory, useRunTimeline } from './composables/use-run-history';
export type { UseElapsedOptions } from './elapsed/use-elapsed';
export { useCountdown, useElapsed } from './elapsed/use-elapsed';
export type {
  DehydratedRun,
  DehydratedRuns,
  Runlight,
  RunlightOptions,
} from './plugin/create-runlight';
export { createRunlight, RUNLIGHT_KEY } from './plugin/create-runlight';
export { RunlightPluginMissingError } from './plugin/runlight-plugin-missing-error';
export { RunlightProvider } from './plugin/runlight-provider';
export { useRunlight } from './plugin/use-runlight';
export { OperationIndicator } from './status/operation-indicator';
export type { RunStatusSlotProps } from './status/run-status';
export { RunStatus } from './status/run-status';
export { runlightStatusCss } from './status/runlight-css';
export type {
  RetrySchedule,
  RunStatusInfo,
  UseRunStatusOptions,
} from './status/use-run-status';
export { useRunStatus } from './status/use-run-status';
