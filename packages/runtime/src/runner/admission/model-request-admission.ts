import type { RunOperation } from '@runlight/protocol';
import type { LanguageModelMiddleware, ToolSet } from 'ai';
import { type ExecutionContext, now } from '../execution-context';
import type { ModelRequestFailure, OperationRecorder } from '../lifecycle/operation-recorder';
import { modelFailureReason, sdkRetryDelayMs, sdkWillRetry } from './model-failure';
import { observeProviderParts } from './model-request-observers';
import type { StepSequence } from './step-sequence';

/** The AI SDK's default `maxRetries`. */
const DEFAULT_MAX_RETRIES = 2;

/**
 * Durable admission of model requests (ADR 0174): `started` is recorded (awaited) before the
 * provider is called, so a rejected write prevents the invocation. Every identity is unique
 * within the run and names its step:
 *
 * - a concrete model is wrapped: `model-request:step-<n>:<callId>:attempt-<k>`, one operation
 *   per SDK retry, each with its `attempt`, later ones with the first attempt's start
 *   (`requestStartedAt`); a failed attempt names why (`failureReason`, from status codes and
 *   error classes, never provider text) and whether the SDK tries again (`willRetry`) — then when (`retryAt`: the failure's time plus the
 *   SDK's delay for it, from the provider's retry header or the backoff) and how often in all
 *   (`maxAttempts`);
 * - a model id is resolved by the SDK and cannot be wrapped, so `prepareStep` admits it:
 *   `model-request:step-<n>:<runtime id>-<sdk step>`, SDK retries stay inside it.
 *
 * @example
 * const admission = new ModelRequestAdmission(context, steps, recorder, { tools, maxRetries });
 * const model = wrapLanguageModel({ model: concrete, middleware: admission.middleware() });
 */
export class ModelRequestAdmission {
  readonly #context: ExecutionContext;
  readonly #steps: StepSequence;
  readonly #recorder: OperationRecorder;
  readonly #attempts = new Map<number, { count: number; firstStartedAt: string }>();
  readonly #tools: ToolSet | undefined;
  readonly #maxRetries: number;

  constructor(
    context: ExecutionContext,
    steps: StepSequence,
    recorder: OperationRecorder,
    request: { tools: ToolSet | undefined; maxRetries: number | undefined },
  ) {
    this.#context = context;
    this.#steps = steps;
    this.#recorder = recorder;
    this.#tools = request.tools;
    this.#maxRetries = request.maxRetries ?? DEFAULT_MAX_RETRIES;
  }

  /** `wrapStream` middleware: previous step committed, `started` recorded, then `doStream`. */
  middleware(): LanguageModelMiddleware {
    return {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        const stop = this.#context.stop;
        const step = this.#steps.offset + this.#steps.sdkStep;
        const previous = this.#attempts.get(step);
        const attempt = (previous?.count ?? 0) + 1;
        await this.#steps.previousStepCommitted(this.#steps.sdkStep);
        const operation = await this.#admit(
          step,
          `${this.#context.callId ?? this.#context.executionId}:attempt-${attempt}`,
          { attempt, requestStartedAt: previous?.firstStartedAt },
        );
        this.#attempts.set(step, {
          count: attempt,
          firstStartedAt: previous?.firstStartedAt ?? operation.startedAt,
        });
        const telemetry = this.#context.deps.telemetry;
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          // Spans the provider call makes (an instrumented fetch) nest under this operation.
          result = await (telemetry
            ? telemetry.withOperation(this.#context.runId, operation.id, doStream)
            : doStream());
        } catch (error) {
          const phase = stop.endPhase();
          await this.#recorder.endOperation(
            operation.id,
            phase,
            undefined,
            phase === 'failed' && !stop.isOwn(error) ? this.#failure(error, attempt) : undefined,
          );
          if (!stop.aborted()) this.#context.log('warn', 'A model request attempt failed', error);
          throw error;
        }
        return {
          ...result,
          stream: observeProviderParts(result.stream, {
            recorder: this.#recorder,
            stop,
            operation,
            tools: this.#tools,
            ...(telemetry
              ? {
                  onUsage: (usage: { inputTokens?: number; outputTokens?: number }) =>
                    telemetry.recordUsage(this.#context.runId, operation.id, usage),
                }
              : {}),
          }),
        };
      },
    };
  }

  /** Why attempt `attempt` failed; when the SDK retries it, how long it waits and how often. */
  #failure(error: unknown, attempt: number): ModelRequestFailure {
    const failureReason = modelFailureReason(error);
    if (!sdkWillRetry(error, attempt, this.#maxRetries)) return { failureReason, willRetry: false };
    return {
      failureReason,
      willRetry: true,
      retry: { delayMs: sdkRetryDelayMs(error, attempt), maxAttempts: this.#maxRetries + 1 },
    };
  }

  /** Admits the request of SDK step `sdkStep` for a model id, from `prepareStep` (awaited). */
  admitModelId(step: number, sdkStep: number): Promise<RunOperation> {
    return this.#admit(step, `${this.#context.executionId}-${sdkStep}`, { attempt: 1 });
  }

  /** Records `started` (awaited) — only then may the provider be called. */
  async #admit(
    step: number,
    identity: string,
    retry: { attempt: number; requestStartedAt?: string },
  ): Promise<RunOperation> {
    this.#context.stop.throwIfStopped();
    const operation: RunOperation = {
      id: `model-request:step-${step}:${identity}`,
      kind: 'model-request',
      phase: 'started',
      step,
      startedAt: now(),
      attempt: retry.attempt,
    };
    if (retry.attempt >= 2 && retry.requestStartedAt !== undefined) {
      operation.requestStartedAt = retry.requestStartedAt;
    }
    await this.#recorder.recordOrStop(operation);
    return operation;
  }
}
