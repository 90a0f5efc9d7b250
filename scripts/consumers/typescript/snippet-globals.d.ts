// The names the README snippets leave to the reader — the app's own model, tools, auth and
// components — and the library names a short fragment uses without repeating its imports.
// Typed from the packed packages' declarations, so a fragment still checks against the real API.
import type { UIMessage as AiUIMessage, LanguageModel, ModelMessage, ToolSet } from 'ai';
import type { ReactNode } from 'react';

type Action = import('@runlight/runtime').RunAction;
interface User {
  id: string;
  canStartRuns: boolean;
}

declare global {
  type UIMessage = AiUIMessage;
  // The app's own parts.
  const model: LanguageModel;
  const tools: ToolSet;
  const messages: ModelMessage[];
  const runId: string;
  const compact: NonNullable<import('@runlight/runtime').StartRunOptions['compact']>;
  function messagesFrom(body: unknown): ModelMessage[];
  function sessionUser(request: Request): Promise<User | null>;
  function userOf(request: Request): Promise<User | null>;
  function canAccess(user: User | null, runId: string, action: Action): boolean;
  function verifyToken(token: string): Promise<User | null>;
  function runOwner(runId: string): Promise<string>;
  const sessions: { get(id: string): Promise<{ runs: Set<string> } | null> };
  function getToken(): Promise<string>;
  function Markdown(props: { parts: readonly unknown[] }): ReactNode;
  function saveToMyDatabase(runId: string, message: unknown): Promise<void>;
  // Names a fragment takes from an earlier snippet ("as above").
  const store: import('@runlight/runtime').AgentRuntimeStore;
  const runtime: import('@runlight/runtime').AgentRuntime;
  const handlers: import('@runlight/runtime').RunHandlers;
  const authorize: import('@runlight/runtime').Authorize;
  const client: import('@runlight/client').RunlightClient;
  // Library names a fragment uses without repeating its imports.
  const convertToModelMessages: typeof import('ai').convertToModelMessages;
  const createRunHandlers: typeof import('@runlight/runtime').createRunHandlers;
  const createMultiplexHandlers: typeof import('@runlight/runtime').createMultiplexHandlers;
  const createRunRouter: typeof import('@runlight/runtime').createRunRouter;
  const createChatStartRoute: typeof import('@runlight/runtime').createChatStartRoute;
  const createRunlightClient: typeof import('@runlight/client').createRunlightClient;
  const createRunlightChatTransport: typeof import('@runlight/ai-sdk').createRunlightChatTransport;
  const RunlightProvider: typeof import('@runlight/react').RunlightProvider;
  const RunStatus: typeof import('@runlight/react').RunStatus;
  const OperationIndicator: typeof import('@runlight/react').OperationIndicator;
  const useRun: typeof import('@runlight/react').useRun;
}
