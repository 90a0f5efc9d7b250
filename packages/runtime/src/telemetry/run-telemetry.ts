/**
 * The runtime's telemetry seam: what it tells a projection of its durable facts (ADR 0174)
 * into spans and metrics, and the two places it lets the projection's context surround work.
 * Nothing here imports OpenTelemetry; `@runlight/runtime/otel` implements it on
 * `@opentelemetry/api` (`createOtelTelemetry`), so an app without telemetry loads none of it.
 *
 * Every call is a notification: the runtime calls it after the fact committed, never awaits it,
 * and survives it throwing (`safeTelemetry`).
 */
import type { AgentRun, DurableRunEvent, RunTrace } from '@runlight/protocol';

/** The model an execution calls, as only the executing process knows it (never prompts). */
export interface ExecutionModel {
  /** The model id (`gen_ai.request.model`). */
  modelId: string;
  /** The AI SDK provider name, e.g. `openai.chat` (`gen_ai.provider.name`), when known. */
  provider?: string;
}

/** Token usage a provider reported in its finish part. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** How a durable event came about, when the event itself does not say. */
export interface ObservedCause {
  /**
   * The `acquired` event of a takeover: the previous owner's lease had expired (at
   * `leaseExpiredAt`, when it could be read just before).
   */
  takeover?: { takeovers: number; leaseExpiredAt?: string };
}

export interface RunTelemetry {
  /**
   * Called just before this runtime creates a run: the trace context to store with it (the
   * run span's), so every process that later executes the run stays in its trace.
   */
  traceForNewRun?(runId: string): RunTrace | undefined;
  /** A durable event this runtime committed, with the run record after it. */
  observe(event: DurableRunEvent, run: AgentRun, cause?: ObservedCause): void;
  /** An execution of the run begins here with this model (before its first request). */
  describeExecution?(runId: string, model: ExecutionModel): void;
  /** The provider reported token usage for a model-request operation. */
  recordUsage?(runId: string, operationId: string, usage: TokenUsage): void;
  /**
   * This process lost the run to another owner (its lease was taken over): the run's spans held
   * here end now; the new owner continues the run's trace from `run.trace`.
   */
  release?(runId: string): void;
  /** Runs `work` inside the run's context: the AI SDK's own spans nest under the run. */
  withRun?<T>(runId: string, work: () => T): T;
  /** Runs `work` inside an operation's context: spans the provider call makes nest under it. */
  withOperation?<T>(runId: string, operationId: string, work: () => T): T;
}

/**
 * The runtime's view of an application's telemetry: every call guarded, so a throwing
 * projection is logged and never fails a run.
 */
export function safeTelemetry(
  telemetry: RunTelemetry | undefined,
  onError: (runId: string, error: unknown) => void,
): Required<RunTelemetry> | undefined {
  if (!telemetry) return undefined;
  const guard = <T>(runId: string, call: () => T, fallback: T): T => {
    try {
      return call();
    } catch (error) {
      onError(runId, error);
      return fallback;
    }
  };
  return {
    traceForNewRun: (runId) => guard(runId, () => telemetry.traceForNewRun?.(runId), undefined),
    observe: (event, run, cause) =>
      guard(event.runId, () => telemetry.observe(event, run, cause), undefined),
    describeExecution: (runId, model) =>
      guard(runId, () => telemetry.describeExecution?.(runId, model), undefined),
    recordUsage: (runId, operationId, usage) =>
      guard(runId, () => telemetry.recordUsage?.(runId, operationId, usage), undefined),
    release: (runId) => guard(runId, () => telemetry.release?.(runId), undefined),
    // Only the projection's own context switch is guarded; an error `work` throws is its own.
    withRun: (runId, work) => (telemetry.withRun ? telemetry.withRun(runId, work) : work()),
    withOperation: (runId, operationId, work) =>
      telemetry.withOperation ? telemetry.withOperation(runId, operationId, work) : work(),
  };
}
