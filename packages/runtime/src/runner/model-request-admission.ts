import type { RunOperation } from '@runlight/protocol';
import type { LanguageModelMiddleware } from 'ai';
import { type ExecutionContext, now } from './execution-context';
import { observeProviderParts } from './model-request-observers';
import type { OperationRecorder } from './operation-recorder';
import type { StepSequence } from './step-sequence';

/**
 * Durable admission of model requests (ADR 0174): `started` is recorded (awaited) before the
 * provider is called, so a rejected write prevents the invocation. Every identity is unique
 * within the run and names its step:
 *
 * - a concrete model is wrapped: `model-request:step-<n>:<callId>:attempt-<k>`, one operation
 *   per SDK retry;
 * - a model id is resolved by the SDK and cannot be wrapped, so `prepareStep` admits it:
 *   `model-request:step-<n>:<runtime id>-<sdk step>`, SDK retries stay inside it.
 *
 * @example
 * const admission = new ModelRequestAdmission(context, steps, recorder);
 * const model = wrapLanguageModel({ model: concrete, middleware: admission.middleware() });
 */
export class ModelRequestAdmission {
  readonly #context: ExecutionContext;
  readonly #steps: StepSequence;
  readonly #recorder: OperationRecorder;
  readonly #attempts = new Map<number, number>();

  constructor(context: ExecutionContext, steps: StepSequence, recorder: OperationRecorder) {
    this.#context = context;
    this.#steps = steps;
    this.#recorder = recorder;
  }

  /** `wrapStream` middleware: previous step committed, `started` recorded, then `doStream`. */
  middleware(): LanguageModelMiddleware {
    return {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        const stop = this.#context.stop;
        const step = this.#steps.offset + this.#steps.sdkStep;
        const attempt = (this.#attempts.get(step) ?? 0) + 1;
        this.#attempts.set(step, attempt);
        await this.#steps.previousStepCommitted(this.#steps.sdkStep);
        const operation = await this.#admit(
          step,
          `${this.#context.callId ?? this.#context.executionId}:attempt-${attempt}`,
        );
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          await this.#recorder.endOperation(operation.id, stop.aborted() ? 'cancelled' : 'failed');
          if (!stop.aborted()) this.#context.log('warn', 'A model request attempt failed', error);
          throw error;
        }
        return {
          ...result,
          stream: result.stream.pipeThrough(observeProviderParts(this.#recorder, operation)),
        };
      },
    };
  }

  /** Admits the request of SDK step `sdkStep` for a model id, from `prepareStep` (awaited). */
  admitModelId(step: number, sdkStep: number): Promise<RunOperation> {
    return this.#admit(step, `${this.#context.executionId}-${sdkStep}`);
  }

  /** Records `started` (awaited) — only then may the provider be called. */
  async #admit(step: number, identity: string): Promise<RunOperation> {
    this.#context.stop.throwIfStopped();
    const operation: RunOperation = {
      id: `model-request:step-${step}:${identity}`,
      kind: 'model-request',
      phase: 'started',
      step,
      startedAt: now(),
    };
    await this.#recorder.recordOrStop(operation);
    return operation;
  }
}
