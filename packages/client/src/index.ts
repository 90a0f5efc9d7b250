export { applyEvent } from './apply-event';
export type { BatchSnapshotContext } from './batch-snapshot-loader';
export { batchSnapshotLoader } from './batch-snapshot-loader';
export type {
  MultiplexedRunlightClient,
  MultiplexedRunlightClientOptions,
} from './create-multiplexed-client';
export { createMultiplexedRunlightClient } from './create-multiplexed-client';
export type {
  RunlightClient,
  RunlightClientOptions,
  SnapshotLoader,
} from './create-runlight-client';
export { createRunlightClient } from './create-runlight-client';
export { cursorOf } from './cursor';
export type { RunlightClientErrorKind } from './errors/runlight-client-error';
export { RunlightClientError } from './errors/runlight-client-error';
export type { LoadedSnapshot, SnapshotLoad } from './fetch-snapshot';
export { HeldEvents } from './held-events';
export type { MergeSnapshotOptions } from './merge-snapshot';
export { mergeSnapshot } from './merge-snapshot';
export type { ApprovalAnswer } from './run-controls';
export type { RunHistoryContext } from './run-history';
export { RunHistory } from './run-history';
export type { CoveredRevisions, RunHistoryState } from './run-history-state';
export {
  completeThrough,
  initialHistoryState,
  mergeHistoryPage,
  mergeLiveEvent,
  nextHistoryAfter,
} from './run-history-state';
export type { RunMultiplexerOptions } from './run-multiplexer';
export { RunMultiplexer } from './run-multiplexer';
export type { ConnectionState, LiveOverlay, RunState, SyncPhase } from './run-state';
export { initialRunState } from './run-state';
export { RunStore } from './run-store';
export type { ReconnectOptions, StreamLimits } from './run-store-context';
export type { Activity, ActivityKind } from './select-activity';
export { selectActivity, selectLeaseExpiry } from './select-activity';
export { selectElapsedMs } from './select-elapsed-ms';
export { selectMessage } from './select-message';
export type { LeaseExpirySource } from './watch-lease-expiry';
export { watchLeaseExpiry } from './watch-lease-expiry';
