/**
 * `@runlight/runtime/driver`: what the authors of a store driver or an event bus build on, and
 * nobody else needs. A driver stores the run log under the contract `AgentRuntimeDriver` states and
 * folds it with `evolveRun` (the reducers are the fold's steps); a bus is a transport on the
 * per-run delivery core (`RunDelivery`, `BusHealth`, `BusTimers`, `ControlListeners`).
 * `@runlight/store-postgres` and `@runlight/bus-redis` are built on exactly this entry.
 */
export { BusHealth } from '../events/bus-health';
export { BusTimers } from '../events/bus-timers';
export { ControlListeners } from '../events/control-listeners';
export type {
  DurablePointer,
  Produced,
  ReadDurableEvents,
  RunDeliveryOptions,
} from '../events/run-delivery';
export { RunDelivery } from '../events/run-delivery';
export type {
  AgentRuntimeDriver,
  StoredControlRequest,
  StoredRunInput,
} from '../store/driver/driver';
export { EventSequenceError, evolveRun, type StoredRunEvent } from '../store/log/evolve-run';
export {
  type DriverRunEvent,
  type PackedRunEvent,
  type StoredEventHead,
  storedEventHead,
  unpackStoredEvent,
  wholeStoredEvent,
} from '../store/log/packed-event';
export type {
  AssistantAppend,
  OwnerGuard,
  TerminalCommit,
  TerminalResult,
} from '../store/log/reducer';
export {
  reduceAcquireRun,
  reduceAppendAssistant,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceSaveAssistantCheckpoint,
} from '../store/log/reducer';
export type {
  AssistantPointer,
  Lease,
  Mutation,
  OperationCursor,
  StoredRun,
} from '../store/log/stored-run';
export type { OwnedRunOptions } from '../store/owned-run';
export { OwnedRun } from '../store/owned-run';
export { RunMutationQueue } from '../store/run-mutation-queue';
