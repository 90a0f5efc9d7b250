export type { LoadedChat } from './chat-conversation';
export type {
  RunlightChatTransport,
  RunlightChatTransportOptions,
  StartRunRequest,
} from './create-runlight-chat-transport';
export { createRunlightChatTransport } from './create-runlight-chat-transport';
export type { RunlightTransportErrorKind } from './errors/runlight-transport-error';
export { RunlightTransportError } from './errors/runlight-transport-error';
export type { ChunkCursor } from './message-chunks';
export { chunkCursorOf, emptyChunkCursor, messageChunks } from './message-chunks';
export type { RunChunkStreamOptions } from './run-chunk-stream';
export { runChunkStream } from './run-chunk-stream';
export type { RunIdMemory, RunIdStorage } from './run-id-memory';
export { createRunIdMemory } from './run-id-memory';
export type { ApprovalAnswer } from './run-routes';
export { toChatStatus } from './to-chat-status';
