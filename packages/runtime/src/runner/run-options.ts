import type { AgentRun, UIMessage } from '@runlight/protocol';
import type { LanguageModel, ModelMessage, streamText, ToolSet } from 'ai';

type StreamTextOptions = Parameters<typeof streamText>[0];

/**
 * The `streamText` options a run passes to the AI SDK unchanged, per run: sampling and
 * output settings, provider options and headers, tool choice, telemetry, and the step and end
 * callbacks. The runtime owns the rest (`model` wrapping, `messages`, `abortSignal`,
 * `prepareStep`, `onStart`, `onError`, `stopWhen`, `maxRetries`), so a run's facts stay true.
 */
export const MODEL_CALL_OPTION_KEYS = [
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'stopSequences',
  'seed',
  'reasoning',
  'headers',
  'providerOptions',
  'toolChoice',
  'activeTools',
  'toolOrder',
  'toolCallConcurrency',
  'repairToolCall',
  'telemetry',
  'experimental_telemetry',
  'onStepStart',
  'onStepEnd',
  'onStepFinish',
  'onEnd',
  'onChunk',
  'onAbort',
  'onToolExecutionStart',
  'onToolExecutionEnd',
] as const satisfies readonly (keyof StreamTextOptions)[];

/** `streamText`'s own types for the options of `MODEL_CALL_OPTION_KEYS`. */
export type ModelCallOptions = Pick<StreamTextOptions, (typeof MODEL_CALL_OPTION_KEYS)[number]>;

/** What `onFinish` receives once the run's execution ended (or paused for approvals). */
export interface RunFinish {
  /** The run as stored: completed, failed, cancelled, or `running` while it awaits approvals. */
  run: AgentRun;
  /** The run's final assistant message as checkpointed (what every viewer is shown). */
  message: UIMessage | null;
}

/** What a `compact` callback receives before each model request. */
export interface CompactInput {
  /** The messages the next model request would send. */
  messages: ModelMessage[];
  /** The zero-based step of the run (a resumed run continues the count). */
  step: number;
  /** Aborts when the run is cancelled or loses its lease. */
  signal: AbortSignal;
}

/** `compacted` replaces the messages of this step; `not_needed` claims no summary was made. */
export type CompactResult =
  | { status: 'compacted'; messages: ModelMessage[] }
  | { status: 'not_needed' };

export type CompactFunction = (input: CompactInput) => PromiseLike<CompactResult> | CompactResult;

/** What the runner needs to execute a run with the AI SDK; shared by start and resume. */
export interface RunExecutionOptions extends ModelCallOptions {
  /** A language model, or a model id the global provider resolves (admitted in `prepareStep`). */
  model: LanguageModel;
  /** The conversation before this run's assistant message. */
  messages: ModelMessage[];
  tools?: ToolSet;
  toolApproval?: StreamTextOptions['toolApproval'];
  /** Runs before each model request; each invocation is a durable `compaction` operation. */
  compact?: CompactFunction;
  /** Default `isStepCount(1)` (the AI SDK's default). */
  stopWhen?: StreamTextOptions['stopWhen'];
  abortSignal?: AbortSignal;
  /** System instructions (the AI SDK's `instructions`). */
  system?: StreamTextOptions['instructions'];
  /** AI SDK retries of a failed model request (each attempt is its own operation). Default 2. */
  maxRetries?: number;
  /**
   * Called once this execution ended — completed, failed, cancelled, or paused for approvals —
   * with the run and its final checkpointed assistant message, e.g. to persist the message in
   * the app's own database. Awaited before `done` resolves; a throw is logged and changes
   * nothing stored. (The AI SDK's own end event is `onEnd`.)
   */
  onFinish?: (finish: RunFinish) => void | PromiseLike<void>;
}

export interface StartRunOptions extends RunExecutionOptions {
  runId: string;
  /**
   * The conversation the run answers, stored with it (when the store keeps run inputs:
   * `store.runInputs`, as the memory and PostgreSQL drivers do) so a reload, another tab or
   * another device can restore it: the AI SDK UI messages before the run's assistant message
   * (at most 500, 1 MiB of JSON; validated) and the chat they belong to. Stored only by the
   * start that creates the run. Holds what the app passes, nothing more.
   */
  conversation?: { chatId?: string; messages: UIMessage[] };
}

/** A user's answer to a tool approval request of the run's assistant message. */
export interface ToolApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/**
 * Continues a run that awaits approvals. Options left out are taken from the `startRun` of
 * this process; after a restart, pass at least `model` and `messages` (and `tools`).
 */
export interface ResumeRunOptions extends Partial<RunExecutionOptions> {
  runId: string;
  approvals: readonly ToolApprovalAnswer[];
}

/**
 * One entry of the server log. `error` is redacted by default (`RedactedError`: kind, status,
 * retryable, a system code — never a prompt, message, tool input or output, or a provider
 * call's body, header or text); `logRawErrors: true` passes the raw error instead.
 */
export interface RuntimeLogEntry {
  level: 'error' | 'warn' | 'info';
  message: string;
  runId: string;
  error?: unknown;
  /** The run's model provider (`model.provider`), on the entries of an execution. */
  provider?: string;
  /** The run's model id, on the entries of an execution. */
  model?: string;
}
