import type { RunAgentInput } from '@ag-ui/core';
import type {
  AgentRuntime,
  AgentRuntimeStore,
  RunAccessPolicy,
  StartRunOptions,
} from '@runlight/runtime';
import type { ModelMessage } from 'ai';

/** What the app's `start` receives: the validated AG-UI request. */
export interface AgUiStartInput {
  request: Request;
  /** The new run's id (crypto-random, made by the route: a client-chosen id grants nothing). */
  runId: string;
  /** The `RunAgentInput`, validated with `@ag-ui/core`'s schema. */
  input: RunAgentInput;
}

/** The run's options besides its id; `messages` defaults to `toModelMessages(input.messages)`. */
export type AgUiRunOptions = Omit<StartRunOptions, 'runId' | 'messages' | 'conversation'> & {
  messages?: ModelMessage[];
};

export interface AgUiRouteOptions {
  /** The runtime that executes the runs (it also publishes their events to this route). */
  runtime: AgentRuntime;
  /** The store the runs live in. */
  store: AgentRuntimeStore;
  /**
   * The access policy (`Authorize` or `'public'` on purpose): asked `start` with the new run's id
   * (and the `threadId` as `chatId` once known) before the body is read; `approve` for the run a
   * `resume` answers; `read` before a resume stream, and again every `reauthorizeMs` while a
   * stream is open. Required: without it the route is not built (`AccessPolicyError`).
   */
  authorize: RunAccessPolicy;
  /** The model, tools and options of a new run — or a `Response` to refuse the start. */
  start: (input: AgUiStartInput) => AgUiRunOptions | Response | Promise<AgUiRunOptions | Response>;
  /** Largest `RunAgentInput` body in bytes. Default 1 MiB (a long thread is sent whole). */
  maxBodyBytes?: number;
  /** How often an open stream re-asks `authorize` (`read`). Default 60 000 ms; `0` never. */
  reauthorizeMs?: number;
  /** The SSE comment `: ping` after this many idle ms. Default 15 000. */
  heartbeatMs?: number;
  /** Failures the client gets a generic 500 for, and failures of a started execution. */
  onError?: (error: unknown) => void;
}
