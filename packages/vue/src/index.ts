/**
 * `@runlight/vue`: Vue 3 bindings for `@runlight/client`.
 * The client's public names whole — what a run's state means (words, status times, timeline
 * rows), the observer every binding is built on, pending approvals — then this binding's own.
 * Nothing here is a second definition of a client name.
 */
export * from '@runlight/client';
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
