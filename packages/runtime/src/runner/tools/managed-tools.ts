import type { ToolExecutionOptions, ToolSet } from 'ai';

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
 * the effect receives `idempotencyKey`. The fence narrows the window in which a run that
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
        return output;
      },
    };
  }
  return fenced as TOOLS;
}
