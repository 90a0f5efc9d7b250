import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isTerminalPhase, type RunOperation } from '@runlight/protocol';
import type { TextStreamPart, ToolSet } from 'ai';
import type { ExecutionStop } from './execution-stop';
import { isFirstOutput, isFirstSdkOutput } from './first-output';
import type { OperationRecorder } from './operation-recorder';

/**
 * First output, provider errors and the end of a concrete model's request, observed on the
 * provider stream its admission wrapped.
 *
 * @example
 * return { ...result, stream: result.stream.pipeThrough(observeProviderParts(recorder, operation)) };
 */
export function observeProviderParts(recorder: OperationRecorder, operation: RunOperation) {
  return new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
    // Synchronous unless there is something to record: no promise per token.
    transform: (part, controller) => {
      if (part.type === 'error') {
        // Logged (and named provider_failure) when the SDK forwards it as a stream part.
        return recorder.endOperation(operation.id, 'failed').then(() => controller.enqueue(part));
      }
      // `firstOutput`'s own condition, checked here so later tokens make no promise.
      const current = recorder.current;
      if (current?.id === operation.id && current.phase === 'started' && isFirstOutput(part)) {
        return recorder.firstOutput(operation.id).then(() => controller.enqueue(part));
      }
      controller.enqueue(part);
    },
    flush: async () => {
      await recorder.endOperation(operation.id, 'completed');
    },
  });
}

/**
 * Failures the SDK reports as stream parts, named by their owner; and, for a model id
 * (no middleware), first output and the end of the request.
 *
 * @example
 * result.stream.pipeThrough(observeSdkParts(recorder, stop, typeof options.model === 'string'));
 */
export function observeSdkParts(
  recorder: OperationRecorder,
  stop: ExecutionStop,
  stringModel: boolean,
) {
  return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
    transform: (part, controller) => {
      // Synchronous for the parts there is nothing to record for: no promise per token.
      if (part.type !== 'error' && !stringModel) {
        controller.enqueue(part);
        return;
      }
      return observeSdkPart(part, controller, recorder, stop, stringModel);
    },
  });
}

async function observeSdkPart(
  part: TextStreamPart<ToolSet>,
  controller: TransformStreamDefaultController<TextStreamPart<ToolSet>>,
  recorder: OperationRecorder,
  stop: ExecutionStop,
  stringModel: boolean,
): Promise<void> {
  if (part.type === 'error') {
    stop.onStreamError(part.error, () => recorder.inFlightModelRequest());
    const current = recorder.current;
    if (current && !isTerminalPhase(current.phase)) {
      await recorder.endOperation(current.id, stop.aborted() ? 'cancelled' : 'failed');
    }
  } else if (stringModel && recorder.current?.kind === 'model-request') {
    const current = recorder.current;
    if (part.type === 'finish-step') await recorder.endOperation(current.id, 'completed');
    else if (current.phase === 'started' && isFirstSdkOutput(part)) {
      await recorder.firstOutput(current.id);
    }
  }
  controller.enqueue(part);
}
