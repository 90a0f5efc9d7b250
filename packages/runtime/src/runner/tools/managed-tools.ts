import type { ToolExecutionOptions, ToolSet } from 'ai';
import { ToolResultTooLargeError } from '../../errors/tool-result-too-large-error';
import { DEFAULT_MAX_TOOL_RESULT_BYTES, oversizeOf } from './tool-result-limit';

/** What a managed tool's `execute` receives besides the SDK's own options. */
export interface ManagedToolExecutionOptions extends ToolExecutionOptions<unknown> {
  /**
   * `${runId}:${toolCallId}` — stable across a crash and a re-execution of the same call, so
   * an external effect can be deduplicated by the application.
   */
  idempotencyKey: string;
}

/**
 * The idempotency key the runtime hands a managed tool call, or `undefined` outside the
 * runtime.
 *
 * @example
 * execute: async (input, options) => payments.charge(input, { idempotencyKey: idempotencyKeyOf(options) })
 */
export function idempotencyKeyOf(options: ToolExecutionOptions<unknown>): string | undefined {
  const key = (options as Partial<ManagedToolExecutionOptions>).idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

/**
 * Wraps each tool's `execute` in the managed tool fence: `assertHeld` (a check against the
 * store that this runtime still holds the run) runs before the effect and again after it, and
 * the effect receives `idempotencyKey`. A result above `maxResultBytes` is replaced by a
 * `ToolResultTooLargeError` (the call ends `output-error`, the run goes on). The fence narrows the window in which a run that
 * changed owner executes an effect; it cannot close it — a crash after the effect and before
 * its checkpoint re-runs the call — so crash-safe effects need application idempotency.
 *
 * @example
 * const fenced = fenceTools(tools, runId, () => execution.assertHeld());
 */
export function fenceTools<TOOLS extends ToolSet>(
  tools: TOOLS,
  runId: string,
  assertHeld: () => Promise<void>,
  /** Runs first: a tool executes only after the model's stream finished (see `RunExecution`). */
  beforeExecute?: () => Promise<void>,
  /** A result larger than this (its JSON, UTF-8 bytes) is refused: `ToolResultTooLargeError`. */
  maxResultBytes: number = DEFAULT_MAX_TOOL_RESULT_BYTES,
): TOOLS {
  const fenced: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      fenced[name] = tool;
      continue;
    }
    fenced[name] = {
      ...tool,
      execute: async (input: unknown, options: ToolExecutionOptions<unknown>) => {
        await beforeExecute?.();
        await assertHeld();
        const managed: ManagedToolExecutionOptions = {
          ...options,
          idempotencyKey: `${runId}:${options.toolCallId}`,
        };
        const output = await (execute as (i: unknown, o: unknown) => unknown)(input, managed);
        await assertHeld();
        // Never kept, published or sent on: the call ends as a tool error of fixed text.
        const bytes = isAsyncIterable(output) ? null : oversizeOf(output, maxResultBytes);
        if (bytes !== null) {
          throw new ToolResultTooLargeError(name, options.toolCallId, bytes, maxResultBytes);
        }
        return output;
      },
    };
  }
  return fenced as TOOLS;
}

/** A streaming tool's preliminary results (an async iterable): not measured here. */
function isAsyncIterable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
