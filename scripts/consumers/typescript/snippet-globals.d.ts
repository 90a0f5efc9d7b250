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
  // A driver or bus author's own functions (packages/runtime/README.md, the conformance suites).
  function openMyDriver(): Promise<import('@runlight/runtime').AgentRuntimeDriver>;
  function writeRawRecord(runId: string, record: unknown): Promise<void>;
  function writeRawEvent(runId: string, revision: number, event: unknown): Promise<void>;
  function closeMyDriver(): Promise<void>;
  function openMyBus(options: {
    store: import('@runlight/runtime').AgentRuntimeStore;
    onError: (error: unknown) => void;
  }): Promise<import('@runlight/runtime/test-kit').ConformanceBus>;
  function dropConnections(bus: unknown): Promise<void>;
  function refuse(bus: unknown, down: boolean): Promise<void>;
  function closeEverything(): Promise<void>;
  // An app's own request logging around a fetch (packages/client/README.md).
  function myLogging(
    fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response>;
  // An app's record of who owns a run (packages/runtime/src/http/README.md, chat ownership).
  function runOwners(runIds: readonly string[]): Promise<string[]>;
  function saveRunOwner(runId: string, owner: string): Promise<void>;
  // Names a fragment takes from an earlier snippet ("as above").
  const store: import('@runlight/runtime').AgentRuntimeStore;
  const runtime: import('@runlight/runtime').AgentRuntime;
  const handlers: import('@runlight/runtime').RunHandlers;
  const authorize: import('@runlight/runtime').Authorize;
  const client: import('@runlight/client').RunlightClient;
  const multiplex: import('@runlight/runtime').MultiplexHandlers;
  const snapshot: import('@runlight/protocol').PublicRunSnapshot;
  type Authorize = import('@runlight/runtime').Authorize;
  // Library names a fragment uses without repeating its imports.
  const convertToModelMessages: typeof import('ai').convertToModelMessages;
  const createRunHandlers: typeof import('@runlight/runtime').createRunHandlers;
  const createMultiplexHandlers: typeof import('@runlight/runtime').createMultiplexHandlers;
  const createRunRouter: typeof import('@runlight/runtime').createRunRouter;
  const createChatStartRoute: typeof import('@runlight/runtime').createChatStartRoute;
  const createChatRoutes: typeof import('@runlight/runtime').createChatRoutes;
  const createRunlightClient: typeof import('@runlight/client').createRunlightClient;
  const createRunlightChatTransport: typeof import('@runlight/ai-sdk').createRunlightChatTransport;
  const RunlightProvider: typeof import('@runlight/react').RunlightProvider;
  const RunStatus: typeof import('@runlight/react').RunStatus;
  const OperationIndicator: typeof import('@runlight/react').OperationIndicator;
  const useRun: typeof import('@runlight/react').useRun;
}
