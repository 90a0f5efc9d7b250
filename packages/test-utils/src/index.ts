export type { ConformanceContext, ConformanceTarget } from './conformance-context';
export type { WriteCounts } from './counting-driver';
export { countingDriver, measureLongAnswer, wordTokens } from './counting-driver';
export { describeDriverConformance } from './driver-conformance';
export { assistantMessage, compaction, manualClock, modelRequest, T0, T1, T2 } from './fixtures';
export type { LoopbackServer } from './loopback';
export { listenOnLoopback, loopbackServers } from './loopback';
export {
  appendEvent,
  approvalMessage,
  at,
  checkpoint,
  checkpointEvent,
  compactionOperation,
  delta,
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  RUN_T0,
  run,
  snapshot,
  statusEvent,
  textDelta,
  textMessage,
} from './protocol-fixtures';
export type { RecoveryTarget } from './recovery-conformance';
export { describeRunRecovery } from './recovery-conformance';
export type { RunServer, RunServerOptions } from './run-server';
export { publicRunOf, serveRunHandlers } from './run-server';
