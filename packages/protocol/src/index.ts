export type {
  AgentRun,
  FailureCode,
  PublicAgentRun,
  RunFailure,
  RunStatus,
  TerminalRunStatus,
} from './agent-run';
export {
  AgentRunSchema,
  FAILURE_CODES,
  isTerminalStatus,
  PublicAgentRunSchema,
  RUN_STATUSES,
  RunFailureSchema,
  RunIdSchema,
  ServedAgentRunSchema,
  TERMINAL_RUN_STATUSES,
} from './agent-run';
export type { ApprovalAnswer, ApprovalsBody } from './approvals-body';
export {
  ApprovalAnswerSchema,
  ApprovalAnswersSchema,
  ApprovalsBodySchema,
  MAX_APPROVAL_ANSWERS,
} from './approvals-body';
export type { AssistantCheckpoint } from './assistant-checkpoint';
export { AssistantCheckpointSchema } from './assistant-checkpoint';
export type { PendingApproval } from './pending-approvals';
export { pendingApprovals } from './pending-approvals';
export {
  expandRunDeltaBatch,
  MAX_RUN_DELTA_BATCH,
  type RunDeltaBatch,
  RunDeltaBatchSchema,
} from './run-delta-batch';
export { isRunDeltaShape, runDeltaShapeError } from './run-delta-shape';
export type {
  AssistantAppendEvent,
  AssistantCheckpointEvent,
  DurableRunEvent,
  PublicRunEvent,
  PublicRunStatusEvent,
  RunDeltaEvent,
  RunEvent,
  RunEventRef,
  RunOperationEvent,
  RunReset,
  RunStatusChange,
  RunStatusEvent,
  RunUnauthorized,
} from './run-event';
export {
  AssistantAppendEventSchema,
  AssistantCheckpointEventSchema,
  DurableRunEventSchema,
  isAssistantEvent,
  isDurableEvent,
  PublicRunEventSchema,
  PublicRunStatusEventSchema,
  RUN_STATUS_CHANGES,
  RunDeltaEventSchema,
  RunEventRefSchema,
  RunEventSchema,
  RunOperationEventSchema,
  RunResetSchema,
  RunStatusEventSchema,
  RunUnauthorizedSchema,
  ServedRunEventSchema,
} from './run-event';
export type { RunHandOff } from './run-hand-off';
export { RunHandOffSchema } from './run-hand-off';
export type {
  CompactionOutcome,
  ModelFailureReason,
  OperationKind,
  OperationPhase,
  RunOperation,
  TerminalOperationPhase,
} from './run-operation';
export {
  COMPACTION_OUTCOMES,
  isTerminalPhase,
  MODEL_FAILURE_REASONS,
  OPERATION_KINDS,
  OPERATION_PHASES,
  operationIdNamesStep,
  phaseRank,
  RunOperationSchema,
  TERMINAL_OPERATION_PHASES,
} from './run-operation';
export type { RunOperationsPage } from './run-operations-page';
export { RunOperationsPageSchema } from './run-operations-page';
export type { PublicRunSnapshot, RunSnapshot } from './run-snapshot';
export {
  PublicRunSnapshotSchema,
  RunSnapshotSchema,
  ServedRunSnapshotSchema,
} from './run-snapshot';
export type { RunTrace } from './run-trace';
export { RunTraceSchema } from './run-trace';
export type { Timestamp } from './timestamp';
export { TimestampSchema } from './timestamp';
export type { UIMessage, UIMessageChunk } from './ui-message';
export { UIMessageChunkSchema, UIMessageSchema } from './ui-message';
export type { ProtocolIssue, SafeParseResult } from './validation';
export {
  ProtocolValidationError,
  parseAgentRun,
  parseApprovalsBody,
  parseAssistantAppendEvent,
  parseAssistantCheckpoint,
  parseDurableRunEvent,
  parseRunDeltaBatch,
  parseRunEvent,
  parseRunEventRef,
  parseRunOperation,
  parseRunOperationsPage,
  parseRunReset,
  parseRunSnapshot,
  parseRunTrace,
  parseRunUnauthorized,
  parseServedRunEvent,
  parseServedRunSnapshot,
  safeParseAgentRun,
  safeParseApprovalsBody,
  safeParseAssistantAppendEvent,
  safeParseAssistantCheckpoint,
  safeParseDurableRunEvent,
  safeParseRunDeltaBatch,
  safeParseRunEvent,
  safeParseRunEventRef,
  safeParseRunOperation,
  safeParseRunOperationsPage,
  safeParseRunReset,
  safeParseRunSnapshot,
  safeParseRunTrace,
  safeParseRunUnauthorized,
  safeParseServedRunEvent,
  safeParseServedRunSnapshot,
} from './validation';
