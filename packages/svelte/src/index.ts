/**
 * Svelte 5 bindings for Runlight. What a run's state means — its words, status times and
 * timeline rows — is framework-free and lives in `@runlight/client`; these names stay
 * importable from here, as from `@runlight/react`.
 */
export type {
  ActivityContext,
  ActivityDescription,
  PendingApproval,
  RetrySchedule,
  RunLoadFailure,
  RunStatusInfo,
  RunStatusLabels,
  RunStatusLabelsInput,
  RunStatusView,
  RunTimelineModel,
  TimelineGap,
  TimelineMoment,
  TimelineRow,
  TimelineSpan,
} from '@runlight/client';
export {
  buildRunTimeline,
  defaultRunStatusLabels,
  describeActivity,
  describeFailure,
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  formatElapsed,
  pendingApprovals,
  resolveRunStatusLabels,
  selectRunStatus,
  statusText,
} from '@runlight/client';
export { loadRun } from './context/load-run.js';
export { RunlightProviderMissingError } from './context/provider-missing-error.js';
export { default as RunlightProvider } from './context/RunlightProvider.svelte';
export type {
  RunlightContextOptions,
  RunlightContextValue,
} from './context/runlight-context.svelte.js';
export {
  createRunlightContext,
  getRunlightContext,
  seedRun,
  setRunlightContext,
} from './context/runlight-context.svelte.js';
export type { UseElapsedOptions } from './elapsed/use-elapsed.svelte.js';
export { useCountdown, useElapsed } from './elapsed/use-elapsed.svelte.js';
export type { MaybeGetter } from './runes/maybe-getter.js';
export type { Current } from './runes/run-store-of.js';
export type { RunConnection, RunView, UseRunOptions } from './runes/use-run.js';
export {
  selectRunView,
  useRun,
  useRunActivity,
  useRunConnection,
  useRunOperation,
} from './runes/use-run.js';
export type { RunControlResult, RunControls } from './runes/use-run-controls.svelte.js';
export { useRunControls } from './runes/use-run-controls.svelte.js';
export { useRunHistory, useRunTimeline } from './runes/use-run-history.js';
export { default as RunStatus } from './status/RunStatus.svelte';
export { runlightStatusCss } from './status/status-css.js';
export type { UseRunStatusOptions } from './status/use-run-status.js';
export { useRunStatus } from './status/use-run-status.js';
