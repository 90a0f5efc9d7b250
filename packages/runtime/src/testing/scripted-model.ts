import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** A tool call the scripted model makes; `input` is serialised to JSON for the SDK to parse. */
export interface ScriptedToolCall {
  toolName: string;
  input: unknown;
  /** Default `call-<step>-<index>`. */
  toolCallId?: string;
  /** Stream the arguments as `tool-input-*` deltas before the call (default true). */
  streamInput?: boolean;
  /** The raw input text instead of `JSON.stringify(input)` (e.g. unparsable JSON). */
  rawInput?: string;
}

/** A provider failure: `'request'` rejects `doStream` (before any output); a number emits an
 * `error` part after that many content chunks (mid-stream) and ends the stream. */
export interface ScriptedError {
  at: 'request' | number;
  /** Provider error text. It must never reach a durable record or a published event. */
  message?: string;
  /**
   * A `'request'` failure the AI SDK retries (a retryable `APICallError`, e.g. a 503), after
   * this many ms (`retry-after-ms`). The retry plays the script's next step.
   */
  retryAfterMs?: number;
  /** The HTTP status of a retryable `'request'` failure (default 503), e.g. 429. */
  status?: number;
  /**
   * A mid-stream failure (`at` a number) that breaks the stream itself (`controller.error`, a
   * reset connection) instead of emitting an `error` part.
   */
  break?: boolean;
}

/** One model request (one AI SDK step) of a scripted model. */
export interface ScriptedStep {
  /** Wait before the first content chunk, in ms (the provider wait). Default 0. */
  firstTokenMs?: number;
  /** Delay before every further content chunk, in ms (the token rate). Default 0. */
  tokenMs?: number;
  /** Reasoning tokens, streamed before the text. A string is split into words. */
  reasoning?: string | readonly string[];
  /** Text tokens. A string is split into words (spaces kept). */
  text?: string | readonly string[];
  /** Tool calls after the text; the step finishes with `tool-calls` when there are any. */
  toolCalls?: readonly ScriptedToolCall[];
  /** Extra raw provider parts emitted first (after `stream-start`), e.g. `response-metadata`. */
  preamble?: readonly LanguageModelV4StreamPart[];
  error?: ScriptedError;
}

export interface ScriptedModelOptions {
  provider?: string;
  modelId?: string;
}

/** Splits a string into word tokens that concatenate back to it. */
function tokens(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  if (typeof value !== 'string') return value;
  return value.match(/\s*\S+\s*/g) ?? (value === '' ? [] : [value]);
}

const usage = (output: number) => ({
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortableWaits(signal).wait(ms) ?? Promise.resolve();
}

/**
 * The waits of one provider stream, one at a time, all under one abort listener. `wait` returns
 * undefined when there is nothing to wait for (not aborted, `ms` ≤ 0); `release` removes the
 * listener once the stream ended.
 */
function abortableWaits(signal: AbortSignal | undefined) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reject: ((reason: unknown) => void) | null = null;
  let listening = false;
  const onAbort = () => {
    clearTimeout(timer);
    reject?.(abortReason(signal));
    reject = null;
  };
  return {
    wait(ms: number): Promise<void> | undefined {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (ms <= 0) return undefined;
      if (signal && !listening) {
        listening = true;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      return new Promise<void>((resolve, fail) => {
        reject = fail;
        timer = setTimeout(() => {
          reject = null;
          resolve();
        }, ms);
      });
    },
    release() {
      clearTimeout(timer);
      reject = null;
      if (listening) signal?.removeEventListener('abort', onAbort);
      listening = false;
    },
  };
}

/** The content chunks of a step, in order; each is preceded by the step's delay. */
function contentParts(step: ScriptedStep, index: number): LanguageModelV4StreamPart[][] {
  const groups: LanguageModelV4StreamPart[][] = [];
  const reasoning = tokens(step.reasoning);
  if (reasoning.length > 0) {
    const id = `reasoning-${index}`;
    reasoning.forEach((delta, position) => {
      const group: LanguageModelV4StreamPart[] = [];
      if (position === 0) group.push({ type: 'reasoning-start', id });
      group.push({ type: 'reasoning-delta', id, delta });
      if (position === reasoning.length - 1) group.push({ type: 'reasoning-end', id });
      groups.push(group);
    });
  }
  const text = tokens(step.text);
  if (text.length > 0) {
    const id = `text-${index}`;
    text.forEach((delta, position) => {
      const group: LanguageModelV4StreamPart[] = [];
      if (position === 0) group.push({ type: 'text-start', id });
      group.push({ type: 'text-delta', id, delta });
      if (position === text.length - 1) group.push({ type: 'text-end', id });
      groups.push(group);
    });
  }
  (step.toolCalls ?? []).forEach((call, position) => {
    const toolCallId = call.toolCallId ?? `call-${index}-${position}`;
    const input = call.rawInput ?? JSON.stringify(call.input ?? {});
    if (call.streamInput !== false) {
      groups.push([
        { type: 'tool-input-start', id: toolCallId, toolName: call.toolName },
        { type: 'tool-input-delta', id: toolCallId, delta: input },
        { type: 'tool-input-end', id: toolCallId },
      ]);
    }
    groups.push([{ type: 'tool-call', toolCallId, toolName: call.toolName, input }]);
  });
  return groups;
}

/**
 * An AI SDK `MockLanguageModelV4` that plays a list of steps — one per model request — with
 * realistic timing: a first-token wait, a token rate, reasoning, text, tool calls and provider
 * errors before the first output or mid-stream. Every wait honours the request's abort
 * signal, so cancelling during the provider wait or while streaming behaves like a real
 * provider. Requests past the end of the script fail with a provider error.
 *
 * @example
 * const model = scriptedModel([
 *   { firstTokenMs: 3000, toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }] },
 *   { tokenMs: 40, text: 'It is sunny in Oslo.' },
 * ]);
 * await runtime.startRun({ runId: 'run-1', model, messages, tools, stopWhen: isStepCount(5) }).done;
 * model.doStreamCalls.length; // 2
 */
export function scriptedModel(
  steps: readonly ScriptedStep[],
  options: ScriptedModelOptions = {},
): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    provider: options.provider ?? 'scripted',
    modelId: options.modelId ?? 'scripted-model',
    doStream: async ({ abortSignal }) => {
      const index = calls++;
      const step = steps[index];
      if (step === undefined) {
        throw new Error(`scriptedModel: no step ${index} in a script of ${steps.length}`);
      }
      if (step.error?.at === 'request') {
        await sleep(step.firstTokenMs ?? 0, abortSignal);
        const message = step.error.message ?? 'scripted provider failure';
        const { retryAfterMs, status } = step.error;
        if (retryAfterMs === undefined && status === undefined) throw new Error(message);
        throw new APICallError({
          message,
          url: 'scripted://model',
          requestBodyValues: {},
          statusCode: status ?? 503,
          responseHeaders:
            retryAfterMs === undefined ? {} : { 'retry-after-ms': String(retryAfterMs) },
        });
      }
      const groups = contentParts(step, index);
      const failAt = typeof step.error?.at === 'number' ? step.error.at : -1;
      const toolCalls = step.toolCalls?.length ?? 0;
      const waits = abortableWaits(abortSignal);
      let next = 0;
      let started = false;
      // The hot path makes no promise and no listener per token: `pull` is synchronous when
      // there is nothing to wait for, and one abort listener serves the whole stream.
      let controller!: ReadableStreamDefaultController<LanguageModelV4StreamPart>;
      const end = (last: LanguageModelV4StreamPart) => {
        controller.enqueue(last);
        waits.release();
        controller.close();
      };
      const emit = () => {
        if (next === failAt) {
          if (step.error?.break) {
            fail(new Error(step.error.message ?? 'scripted connection reset'));
            return;
          }
          end({
            type: 'error',
            error: new Error(step.error?.message ?? 'scripted provider failure'),
          });
          return;
        }
        const group = groups[next];
        if (group === undefined) {
          end({
            type: 'finish',
            usage: usage(groups.length),
            finishReason:
              toolCalls > 0
                ? { unified: 'tool-calls', raw: 'tool_calls' }
                : { unified: 'stop', raw: 'stop' },
          });
          return;
        }
        next++;
        for (const part of group) controller.enqueue(part);
      };
      const fail = (error: unknown) => {
        waits.release();
        controller.error(error);
      };
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(c) {
          controller = c;
        },
        pull() {
          if (!started) {
            started = true;
            controller.enqueue({ type: 'stream-start', warnings: [] });
            for (const part of step.preamble ?? []) controller.enqueue(part);
            return;
          }
          const delay =
            next === 0
              ? (step.firstTokenMs ?? 0)
              : next === failAt || groups[next] === undefined
                ? 0
                : (step.tokenMs ?? 0);
          const wait = waits.wait(delay);
          if (wait === undefined) emit();
          else return wait.then(emit, fail);
        },
        cancel() {
          waits.release();
        },
      });
      return { stream };
    },
  });
}
