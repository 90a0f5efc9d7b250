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
export { sendThenRead } from './send-then-read';
export type { ProxiedConnection, TcpProxy } from './tcp-proxy';
export { startTcpProxy } from './tcp-proxy';
export { requestAttempt, TIMELINE_HISTORY } from './timeline-fixtures';
