import type { UIMessage } from '@runlight/protocol';
import { idempotencyKeyOf, type RunExecutionOptions } from '@runlight/runtime';
import { type ScriptedStep, scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, tool } from 'ai';
import { z } from 'zod';

/**
 * What the soak's runs do, decided by the run id alone (`soak-<wave>-<index>-<kind>`), so the
 * runner that starts a run and any runner that recovers it build the same model and tools:
 * - `text` — one streamed answer;
 * - `tools` — a tool call (executed at once), then an answer;
 * - `approval` — a tool call that waits for the user's approval (answered through a gateway);
 * - `cancel` — a long answer the soak cancels through a gateway while it streams.
 */
export const RUN_KINDS = ['text', 'tools', 'approval', 'cancel'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export function runIdOf(wave: number, index: number): string {
  return `soak-${wave}-${index}-${RUN_KINDS[index % RUN_KINDS.length]}`;
}

export function kindOf(runId: string): RunKind {
  const kind = runId.split('-').at(-1) as RunKind;
  if (!RUN_KINDS.includes(kind)) throw new TypeError(`Not a soak run id: ${runId}`);
  return kind;
}

/** Records every execution of a tool call by its idempotency key, so the soak can count them. */
export type RecordEffect = (key: string) => Promise<void>;

const words = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index} `).join('');

/**
 * Steps already behind the checkpointed message: one per tool part with an outcome. A call a
 * dead runner left unfinished (closed `output-error` by the takeover) is made again, as a model
 * that sees it failed would.
 */
function stepsDone(message: UIMessage | null): number {
  if (!message) return 0;
  return message.parts.filter(
    (part) =>
      part.type.startsWith('tool-') &&
      'state' in part &&
      (part.state === 'output-available' ||
        part.state === 'output-denied' ||
        part.state === 'approval-responded'),
  ).length;
}

function script(kind: RunKind, tokenMs: number): ScriptedStep[] {
  const answer = { firstTokenMs: 200, tokenMs, text: words(120, 'w') };
  switch (kind) {
    case 'text':
      return [answer];
    case 'tools':
      return [
        {
          firstTokenMs: 100,
          tokenMs,
          text: words(10, 'a'),
          toolCalls: [{ toolName: 'lookup', input: { q: 'x' } }],
        },
        answer,
      ];
    case 'approval':
      return [
        {
          firstTokenMs: 100,
          tokenMs,
          text: words(5, 'p'),
          toolCalls: [{ toolName: 'transfer', input: { amount: 5 } }],
        },
        answer,
      ];
    case 'cancel':
      return [{ firstTokenMs: 100, tokenMs, text: words(2_000, 'c') }];
  }
}

/**
 * The model, tools and messages of `runId`, continuing after what `message` (the checkpoint
 * a recovering runner resumes from) already holds.
 */
export function executionOf(
  runId: string,
  options: { message?: UIMessage | null; recordEffect: RecordEffect; tokenMs?: number },
): Omit<RunExecutionOptions, 'abortSignal'> {
  const kind = kindOf(runId);
  const steps = script(kind, options.tokenMs ?? 40).slice(stepsDone(options.message ?? null));
  const effect = async (_input: unknown, toolOptions: Parameters<typeof idempotencyKeyOf>[0]) => {
    const key = idempotencyKeyOf(toolOptions);
    if (key) await options.recordEffect(key);
    return { ok: true };
  };
  const lookup = tool({ inputSchema: z.object({ q: z.string() }), execute: effect });
  const transfer = tool({ inputSchema: z.object({ amount: z.number() }), execute: effect });
  return {
    model: scriptedModel(steps.length > 0 ? steps : [{ text: 'Done.' }]),
    messages: [{ role: 'user', content: `Soak run ${runId}` }],
    tools: { lookup, transfer },
    toolApproval: { transfer: 'user-approval' },
    stopWhen: isStepCount(4),
  } as Omit<RunExecutionOptions, 'abortSignal'>;
}
