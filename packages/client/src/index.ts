/** Which approval requests of a message are pending: one definition, from the protocol. */
export { type PendingApproval, pendingApprovals } from '@runlight/protocol';
export type { BatchSnapshotContext } from './connection/batch-snapshot-loader';
export { batchSnapshotLoader } from './connection/batch-snapshot-loader';
export { cursorOf } from './connection/cursor';
export type { LoadedSnapshot, SnapshotLoad } from './connection/fetch-snapshot';
export type { LeaseExpirySource } from './connection/watch-lease-expiry';
export { watchLeaseExpiry } from './connection/watch-lease-expiry';
export type { RunControlResult } from './controls/run-control-result';
export { settleRunControl, typedControlError } from './controls/run-control-result';
export type { RunControlsView } from './controls/select-run-controls';
export { runControlsEquals, selectRunControls } from './controls/select-run-controls';
export type {
  RunlightClient,
  RunlightClientOptions,
  SnapshotLoader,
} from './create-runlight-client';
export { createRunlightClient } from './create-runlight-client';
export type { RunlightClientErrorKind } from './errors/runlight-client-error';
export { RunlightClientError } from './errors/runlight-client-error';
export type { RunHistoryContext } from './history/run-history';
export { RunHistory } from './history/run-history';
export { runHistoryOf } from './history/run-history-of';
export type { CoveredRevisions, RunHistoryState } from './history/run-history-state';
export {
  completeThrough,
  initialHistoryState,
  mergeHistoryPage,
  mergeLiveEvent,
  nextHistoryAfter,
} from './history/run-history-state';
export type { SentControlRequest } from './inspect/client-inspection';
export { ClientInspection, inspectRunlightClient } from './inspect/client-inspection';
export { applyEvent } from './merge/apply-event';
export { HeldEvents } from './merge/held-events';
export type { MergeSnapshotOptions } from './merge/merge-snapshot';
export { mergeSnapshot } from './merge/merge-snapshot';
export type { ConnectionState, LiveOverlay, RunState, SyncPhase } from './merge/run-state';
export { initialRunState } from './merge/run-state';
export type {
  MultiplexedRunlightClient,
  MultiplexedRunlightClientOptions,
} from './multiplex/create-multiplexed-client';
export { createMultiplexedRunlightClient } from './multiplex/create-multiplexed-client';
export type { RunMultiplexerOptions } from './multiplex/run-multiplexer';
export { RunMultiplexer } from './multiplex/run-multiplexer';
export { countdownSeconds } from './observer/countdown-seconds';
export { ElapsedClock, elapsedClock, TICK_MS } from './observer/elapsed-clock';
export type { ObservedRunStore, RunObserverOptions } from './observer/run-observer';
export { RunObserver } from './observer/run-observer';
export type { RunStatusInfo } from './observer/run-status-info';
export { runStatusInfo } from './observer/run-status-info';
export type { DehydratedRun } from './observer/seed-run-store';
export { dehydrateRun, seedRunStore } from './observer/seed-run-store';
export type { RunConnection } from './observer/select-connection';
export { connectionEquals, selectConnection } from './observer/select-connection';
export { selectOperation } from './observer/select-operation';
export { shownElapsedMs } from './observer/shown-elapsed-ms';
export type { ApprovalAnswer } from './run-controls';
export type { RunStoreRecorder } from './run-store';
export { RunStore } from './run-store';
export type { ReconnectOptions, StreamLimits } from './run-store-context';
export type {
  RunLogEntry,
  RunLogEvent,
  RunLogLimits,
  RunLogSnapshot,
  RunLogState,
} from './run-store-log';
export { RunLog, runLogOf } from './run-store-log';
export type { Activity, ActivityKind } from './select/select-activity';
export { selectActivity, selectLeaseExpiry } from './select/select-activity';
export { selectElapsedMs } from './select/select-elapsed-ms';
export { selectMessage } from './select/select-message';
export { type RunView, selectRunView } from './select/select-run-view';
export { activityEquals } from './status/activity-equals';
export type { RetrySchedule, RunStatusDescription } from './status/describe-run-status';
export { describeRunStatus } from './status/describe-run-status';
export type { RunLoadFailure } from './status/load-failure-of';
export { loadFailureOf } from './status/load-failure-of';
export { runlightStatusCss } from './status/run-status-css';
export type { ConnectionIssue, RunStatusView } from './status/select-run-status';
export { runStatusEquals, selectRunStatus } from './status/select-run-status';
export type { TabChannel, TabEnvironment, TabLocks } from './tabs/tab-environment';
export { defaultTabEnvironment } from './tabs/tab-environment';
export type { TabShare } from './tabs/tab-share';
export type { TabSharedFetch, TabSharingOptions } from './tabs/tab-shared-fetch';
export { shareTabs } from './tabs/tab-shared-fetch';
export type {
  RunTimelineModel,
  TimelineGap,
  TimelineRow,
  TimelineSpan,
} from './timeline/build-run-timeline';
export { buildRunTimeline } from './timeline/build-run-timeline';
export type { TimelineMoment } from './timeline/timeline-words';
export {
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  withRetryWait,
} from './timeline/timeline-words';
export { elapsedResolutionMs, formatElapsed } from './words/format-elapsed';
export type {
  ActivityContext,
  ActivityDescription,
  RunStatusLabels,
  RunStatusLabelsInput,
} from './words/run-status-labels';
export {
  defaultRunStatusLabels,
  describeActivity,
  describeFailure,
  resolveRunStatusLabels,
  statusText,
} from './words/run-status-labels';
