export { CallbackResultError } from './errors/callback-result-error';
export type { FencingReason } from './errors/fencing-error';
export { FencingError } from './errors/fencing-error';
export { InvalidChatIdError } from './errors/invalid-chat-id-error';
export { InvalidRunIdError } from './errors/invalid-run-id-error';
export type { TransitionRule } from './errors/invalid-transition-error';
export { InvalidTransitionError } from './errors/invalid-transition-error';
export { RunNotFoundError } from './errors/run-not-found-error';
export { RunlightError } from './errors/runlight-error';
export { RuntimeClosedError } from './errors/runtime-closed-error';
export { StoreConflictError } from './errors/store-conflict-error';
export { StoreRecordError } from './errors/store-record-error';
export { StoreUnavailableError } from './errors/store-unavailable-error';
export {
  TOOL_RESULT_TOO_LARGE_TEXT,
  ToolResultTooLargeError,
} from './errors/tool-result-too-large-error';
export type {
  RunEventListener,
  RunEventSource,
  RunEventSourceHealth,
} from './events/event-hub';
export { RunEventHub } from './events/event-hub';
export type { RunEventBus } from './events/run-event-bus';
export type { RouterAccess, RunAccessPolicy } from './http/access/access-policy';
export type { AccessPolicyProblem } from './http/access/access-policy-error';
export { AccessPolicyError } from './http/access/access-policy-error';
export type { Authorize, AuthorizeInput, RunAction } from './http/access/authorize';
export type { RunCorsOptions, RunCorsPolicy } from './http/access/cors';
export { createCorsPolicy } from './http/access/cors';
export type { CrossSiteGuard, CrossSiteOptions } from './http/access/cross-site-guard';
export { createCrossSiteGuard } from './http/access/cross-site-guard';
export {
  type ChatConversation,
  createChatReadRoute,
  loadChatConversation,
} from './http/chat/chat-conversation';
export { chatRunId } from './http/chat/chat-run-id';
export { type ChatStartBody, chatStartBodySchema } from './http/chat/chat-start-body';
export { createChatRoutes } from './http/chat/create-chat-routes';
export type {
  ChatRunOptions,
  ChatStartInput,
  ChatStartRouteOptions,
} from './http/chat/create-chat-start-route';
export { createChatStartRoute } from './http/chat/create-chat-start-route';
export type {
  MultiplexHandlers,
  MultiplexHandlersOptions,
  RunSnapshotBatchError,
  RunSnapshotBatchResponse,
} from './http/create-multiplex-handlers';
export { createMultiplexHandlers } from './http/create-multiplex-handlers';
export type {
  OwnPolicy,
  RunHandlers,
  RunHandlersOptions,
  RunSnapshotResponse,
} from './http/create-run-handlers';
export { createRunHandlers } from './http/create-run-handlers';
export type { RunHttpErrorBody, RunHttpErrorCode } from './http/json-error';
export type { RunRouter, RunRouterOptions } from './http/routes/create-run-router';
export { createRunRouter } from './http/routes/create-run-router';
export { inProcessFetch } from './http/routes/in-process-fetch';
export type { JsonBody } from './http/routes/read-json-body';
export { readJsonBody } from './http/routes/read-json-body';
export { pathProblem, setRawRequestTarget } from './http/routes/request-target';
export type { RunControl, StartRun } from './http/routes/run-control';
export type { RunRoute, RunRouteName } from './http/routes/run-routes';
export { RUN_ROUTES } from './http/routes/run-routes';
export type { NodeListener, WebHandler } from './http/routes/to-node-listener';
export {
  createNodeRequest,
  toNodeListener,
  writeNodeResponse,
} from './http/routes/to-node-listener';
export { BadCursorError } from './http/streams/bad-cursor-error';
export type {
  RunSubscription,
  RunSubscriptionRefusal,
} from './http/streams/multiplexed-event-stream';
export type { RunResetEvent } from './http/streams/run-event-stream';
export type { RedactedError } from './log/redact-error';
export { redactError } from './log/redact-error';
export type { RunRecovery, RunRecoveryOptions } from './recovery/create-run-recovery';
export { createRunRecovery } from './recovery/create-run-recovery';
export type { AgentRuntime, AgentRuntimeOptions, RunHandle } from './runner/agent-runtime';
export { createAgentRuntime } from './runner/agent-runtime';
export { DEFAULT_CHECKPOINT_EVERY_EVENTS } from './runner/checkpoints/checkpoint-boundary';
export type {
  RecoveryOutcome,
  ResolveRun,
  ResolveRunContext,
  TakeOverOptions,
} from './runner/control/take-over-run';
export type { CloseOptions } from './runner/lifecycle/shutdown';
export { DEFAULT_CLOSE_TIMEOUT_MS } from './runner/lifecycle/shutdown';
export type {
  CompactFunction,
  CompactInput,
  CompactResult,
  ModelCallOptions,
  ResumeRunOptions,
  RunExecutionOptions,
  RunFinish,
  RuntimeLogEntry,
  StartRunOptions,
  ToolApprovalAnswer,
} from './runner/run-options';
export { MODEL_CALL_OPTION_KEYS } from './runner/run-options';
export type { ManagedToolExecutionOptions } from './runner/tools/managed-tools';
export { idempotencyKeyOf } from './runner/tools/managed-tools';
export type { ToolErrorText } from './runner/tools/tool-error-text';
export { DEFAULT_MAX_TOOL_RESULT_BYTES } from './runner/tools/tool-result-limit';
export type { StoreRetryOptions } from './runner/writes/retry-schedule';
export type {
  AgentRuntimeStore,
  AgentRuntimeStoreOptions,
  ExpiredRun,
} from './store/agent-runtime-store';
export { createAgentRuntimeStore } from './store/agent-runtime-store';
export type { ControlRequest, ControlRequests } from './store/control-requests';
export type { AgentRuntimeDriver } from './store/driver/driver';
export { createMemoryDriver } from './store/driver/memory-driver';
export type { Lease, StoredRun } from './store/log/stored-run';
export type { ChatRun, RunInput, RunInputs } from './store/run-inputs';
export type {
  ExecutionModel,
  ObservedCause,
  RunTelemetry,
  TokenUsage,
} from './telemetry/run-telemetry';
