import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { isTerminalPhase, type RunOperation } from '@runlight/protocol';
import type { TextStreamPart, ToolSet } from 'ai';
import type { ExecutionStop } from '../lifecycle/execution-stop';
import type { OperationRecorder } from '../lifecycle/operation-recorder';
import { isFirstOutput, isFirstSdkOutput, isParsedToolCall } from './first-output';
import { modelFailureReason } from './model-failure';

/**
 * First output, provider errors and the end of a concrete model's request, observed on the
 * provider stream its admission wrapped. The request ends `completed` at the provider's
 * `finish` part — before the SDK sees it, so before any tool runs — or when the stream closes;
 * a stream that breaks (a reset connection after "Hel") is the provider's failure.
 *
 * @example
 * return { ...result, stream: observeProviderParts(result.stream, { recorder, stop, operation, tools }) };
 */
export function observeProviderParts(
  source: ReadableStream<LanguageModelV4StreamPart>,
  observed: {
    recorder: OperationRecorder;
    stop: ExecutionStop;
    operation: RunOperation;
    tools: ToolSet | undefined;
    /** The provider's reported usage, for the telemetry (never durable: not a run fact). */
    onUsage?: (usage: { inputTokens?: number; outputTokens?: number }) => void;
  },
): ReadableStream<LanguageModelV4StreamPart> {
  const { recorder, stop, operation, tools, onUsage } = observed;
  const reader = source.getReader();
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let result: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        result = await reader.read();
      } catch (error) {
        if (stop.aborted()) {
          // The abort of this execution (a cancel, or a failure named elsewhere) broke it.
          await recorder.endOperation(operation.id, stop.endPhase());
          controller.error(error);
          return;
        }
        // Ended before it is named: naming aborts the SDK call, and the abort is not a cancel.
        const ended = recorder.endOperation(operation.id, 'failed', undefined, {
          failureReason: modelFailureReason(error),
          willRetry: false,
        });
        stop.onStreamError(error, () => operation.id);
        stop.own(error);
        await ended;
        controller.error(error);
        return;
      }
      if (result.done) {
        await recorder.endOperation(operation.id, 'completed');
        controller.close();
        return;
      }
      const part = result.value;
      if (part.type === 'error') {
        // Named provider_failure (and logged) when the SDK forwards it as a stream part.
        await recorder.endOperation(operation.id, 'failed', undefined, {
          failureReason: modelFailureReason(part.error),
          willRetry: false,
        });
      } else if (part.type === 'finish') {
        onUsage?.(tokenUsage(part.usage));
        await recorder.endOperation(operation.id, 'completed');
      } else if (part.type === 'tool-call') {
        if (await isParsedToolCall(part, tools)) await recorder.firstOutput(operation.id);
      } else if (isFirstOutput(part) && recorder.awaitsFirstOutput(operation.id)) {
        // Checked first: after the first output, a token costs no call and no promise here.
        await recorder.firstOutput(operation.id);
      }
      controller.enqueue(part);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * Failures the SDK reports as stream parts, named by their owner; and, for a model id
 * (no middleware), first output and the end of a text-only request (`finish-step`; a step
 * with tools ends its request when the first tool executes, see `RunExecution`). Each part
 * leaves through `mapPart` (the tool-error mapping), after what it records.
 *
 * A pull-through stream over `source`'s reader, not a `TransformStream` piped to: one queue
 * per part instead of a writable side, a pipe loop and two queues — the stage runs for every
 * token, and Node's Web Streams were half of the runner's CPU. Errors and cancels pass through.
 *
 * @example
 * observeSdkParts(result.stream, recorder, stop, typeof options.model === 'string', mapPart);
 */
export function observeSdkParts(
  source: ReadableStream<TextStreamPart<ToolSet>>,
  recorder: OperationRecorder,
  stop: ExecutionStop,
  stringModel: boolean,
  mapPart: (part: TextStreamPart<ToolSet>) => TextStreamPart<ToolSet> = (part) => part,
): ReadableStream<TextStreamPart<ToolSet>> {
  const reader = source.getReader();
  return new ReadableStream<TextStreamPart<ToolSet>>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<TextStreamPart<ToolSet>>;
        try {
          result = await reader.read();
        } catch (error) {
          controller.error(error);
          return;
        }
        if (result.done) {
          controller.close();
          return;
        }
        const part = result.value;
        // Nothing to record for a concrete model's ordinary parts: no promise per token.
        if (part.type === 'error' || stringModel) {
          await observeSdkPart(part, recorder, stop, stringModel);
        }
        controller.enqueue(mapPart(part));
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Pulled one part at a time, as the reader downstream asks: no read-ahead of its own.
    { highWaterMark: 0 },
  );
}

async function observeSdkPart(
  part: TextStreamPart<ToolSet>,
  recorder: OperationRecorder,
  stop: ExecutionStop,
  stringModel: boolean,
): Promise<void> {
  if (part.type === 'error') {
    const own = stop.isOwn(part.error);
    stop.onStreamError(part.error, () => recorder.inFlightModelRequest());
    const current = recorder.current;
    if (current && !isTerminalPhase(current.phase)) {
      const phase = stop.endPhase();
      const failure =
        !own && phase === 'failed' && current.kind === 'model-request'
          ? { failureReason: modelFailureReason(part.error), willRetry: false }
          : undefined;
      await recorder.endOperation(current.id, phase, undefined, failure);
    }
  } else if (stringModel && recorder.current?.kind === 'model-request') {
    const current = recorder.current;
    if (part.type === 'finish-step') await recorder.endOperation(current.id, 'completed');
    else if (current.phase === 'started' && isFirstSdkOutput(part)) {
      await recorder.firstOutput(current.id);
    }
  }
}

/**
 * The SDK's own stream broke (its iterator threw an error this execution did not throw): for
 * the runner that is the provider's stream breaking mid-answer — `stopWhen` errors are named
 * `internal` where they are thrown. The request in flight ends `failed`.
 *
 * @example
 * await onStreamBreak(error, recorder, stop);
 */
export async function onStreamBreak(
  error: unknown,
  recorder: OperationRecorder,
  stop: ExecutionStop,
): Promise<void> {
  if (stop.isOwn(error)) return;
  const current = recorder.current;
  if (stop.aborted()) {
    // The abort of this execution broke the stream: a cancel, or a failure named already.
    if (current && !isTerminalPhase(current.phase)) {
      await recorder.endOperation(current.id, stop.endPhase());
    }
    return;
  }
  const ended =
    current && !isTerminalPhase(current.phase)
      ? recorder.endOperation(
          current.id,
          'failed',
          undefined,
          current.kind === 'model-request'
            ? { failureReason: modelFailureReason(error), willRetry: false }
            : undefined,
        )
      : undefined;
  stop.onStreamError(error, () => recorder.inFlightModelRequest());
  await ended;
}

function tokenUsage(usage: LanguageModelV4Usage): { inputTokens?: number; outputTokens?: number } {
  const inputTokens = usage.inputTokens.total;
  const outputTokens = usage.outputTokens.total;
  return {
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}
