export type { RunAgentInput } from '@ag-ui/core';
export { interruptIdOf, parseInterruptId } from './mapping/interrupt-id';
export type { OperationActivityContent } from './mapping/operation-activity';
export { OPERATION_ACTIVITY_TYPE, operationActivityOf } from './mapping/operation-activity';
export type { RunView, ViewPart } from './mapping/run-view';
export { runViewOf } from './mapping/run-view';
export { snapshotMessagesOf } from './mapping/snapshot-messages';
export {
  AG_UI_MESSAGE_PART,
  fromStoredConversation,
  toStoredConversation,
} from './mapping/stored-conversation';
export { toModelMessages } from './mapping/to-model-messages';
export {
  activityMessageIdOf,
  closingEvents,
  endEventOf,
  eventsBetween,
  reopeningEvents,
} from './mapping/view-events';
export type {
  AgUiRouteOptions,
  AgUiRunOptions,
  AgUiStartInput,
} from './server/ag-ui-route-options';
export { createAgUiRoute } from './server/create-ag-ui-route';
