import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { AgentRun, RunOperation, UIMessage, UIMessageChunk } from '@runlight/protocol';
import type { ExecutionModel, TokenUsage } from '../telemetry/run-telemetry';
import { type OtelMetrics, secondsBetween } from './otel-metrics';

/** A model request: its span, across the attempts the SDK makes. */
interface RequestSpan {
  span: Span;
  /** `startedAt` of its first attempt (or `requestStartedAt` when this process saw a later one first). */
  startedAt: string;
  firstOutput: boolean;
}

const at = (timestamp: string) => new Date(timestamp);

/**
 * The spans of one run in this process, projected from its durable facts: the run's span (held
 * here when this process created the run, else the stored trace context as a remote parent), a
 * span per model request — its attempts as events on it — and a span per compaction, each with
 * the original timestamps of the records. Attributes name only ids, enums and counts: no
 * prompt, output, provider error or tool error text ever reaches a span.
 */
export class RunSpans {
  readonly runId: string;
  /** The run's span when this process holds it (created the run, or a run without a trace). */
  readonly span: Span | null;
  /** The context every span of the run is a child of. */
  readonly context: Context;
  model: ExecutionModel | undefined;
  readonly #tracer: Tracer;
  readonly #metrics: OtelMetrics | undefined;
  readonly #requests = new Map<string, RequestSpan>();
  readonly #compactions = new Map<string, Span>();
  readonly #approvals = new Set<string>();

  constructor(
    runId: string,
    span: Span | null,
    context: Context,
    tracer: Tracer,
    metrics: OtelMetrics | undefined,
  ) {
    this.runId = runId;
    this.span = span;
    this.context = span ? trace.setSpan(context, span) : context;
    this.#tracer = tracer;
    this.#metrics = metrics;
  }

  /** The context of a request's span, or the run's when the operation is not open here. */
  contextOf(operationId: string): Context {
    const request = this.#requests.get(requestKey(operationId));
    return request ? trace.setSpan(this.context, request.span) : this.context;
  }

  /** A run-level event: on the run's span, or on a zero-length span when it is held elsewhere. */
  addEvent(name: string, attributes: Attributes, timestamp: string): void {
    if (this.span) {
      this.span.addEvent(name, attributes, at(timestamp));
      return;
    }
    const marker = this.#tracer.startSpan(
      name,
      { startTime: at(timestamp), attributes: { 'runlight.run.id': this.runId, ...attributes } },
      this.context,
    );
    marker.end(at(timestamp));
  }

  operation(operation: RunOperation): void {
    if (operation.kind === 'compaction') this.#compaction(operation);
    else this.#modelRequest(operation);
  }

  usage(operationId: string, usage: TokenUsage): void {
    const request = this.#requests.get(requestKey(operationId));
    if (!request) return;
    if (usage.inputTokens !== undefined)
      request.span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
    if (usage.outputTokens !== undefined)
      request.span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
  }

  /** Approval requests and answers the assistant write made durable, each once. */
  approvalsIn(chunks: readonly UIMessageChunk[], timestamp: string): void {
    for (const chunk of chunks) {
      if (chunk.type === 'tool-approval-request') {
        this.#approval(
          'requested',
          chunk.approvalId,
          { 'gen_ai.tool.call.id': chunk.toolCallId },
          timestamp,
        );
      } else if (chunk.type === 'tool-approval-response') {
        this.#approval(
          'answered',
          chunk.approvalId,
          { 'runlight.approval.approved': chunk.approved },
          timestamp,
        );
      }
    }
  }

  /** The same, from a whole message (a consolidating checkpoint, e.g. after a resume). */
  approvalsInMessage(message: UIMessage, timestamp: string): void {
    for (const part of message.parts) {
      const approval = (part as { approval?: { id?: unknown; approved?: unknown } }).approval;
      if (typeof approval?.id !== 'string') continue;
      const state = (part as { state?: unknown }).state;
      this.#approval('requested', approval.id, {}, timestamp);
      if (state !== 'approval-requested' && typeof approval.approved === 'boolean') {
        this.#approval(
          'answered',
          approval.id,
          { 'runlight.approval.approved': approval.approved },
          timestamp,
        );
      }
    }
  }

  /** The run ended: every open span of it ends at `timestamp`, the run's span with its status. */
  end(run: AgentRun, timestamp: string): void {
    this.#endOpen(timestamp);
    const attributes = {
      'runlight.run.status': run.status,
      ...(run.failure ? { 'runlight.failure.code': run.failure.code } : {}),
    };
    this.#metrics?.runEnded(attributes);
    if (!this.span) {
      // The run's span is held by the process that created it: the end is a fact of its trace.
      this.addEvent('runlight.run.ended', attributes, timestamp);
      return;
    }
    this.span.setAttributes(attributes);
    if (run.failure) this.span.setStatus({ code: SpanStatusCode.ERROR, message: run.failure.code });
    this.span.end(at(timestamp));
  }

  /**
   * This process lets the run go before its end (lost to a new owner, handed off, evicted): the
   * run's span ends here. An operation still open is abandoned, not ended — the new owner records
   * its end (failed), and its span there carries the original start and that end.
   */
  release(timestamp: string): void {
    this.#requests.clear();
    this.#compactions.clear();
    if (!this.span) return;
    this.span.setAttribute('runlight.run.continued_elsewhere', true);
    this.span.end(at(timestamp));
  }

  #endOpen(timestamp: string): void {
    for (const request of this.#requests.values()) request.span.end(at(timestamp));
    for (const span of this.#compactions.values()) span.end(at(timestamp));
    this.#requests.clear();
    this.#compactions.clear();
  }

  #approval(kind: 'requested' | 'answered', id: string, attributes: Attributes, timestamp: string) {
    const key = `${kind}:${id}`;
    if (this.#approvals.has(key)) return;
    this.#approvals.add(key);
    this.addEvent(
      `runlight.approval.${kind}`,
      { 'runlight.approval.id': id, ...attributes },
      timestamp,
    );
  }

  #compaction(operation: RunOperation): void {
    let span = this.#compactions.get(operation.id);
    if (!span) {
      span = this.#tracer.startSpan(
        'runlight.compaction',
        {
          kind: SpanKind.INTERNAL,
          startTime: at(operation.startedAt),
          attributes: this.#operationAttributes(operation),
        },
        this.context,
      );
      this.#compactions.set(operation.id, span);
    }
    span.setAttribute('runlight.operation.phase', operation.phase);
    if (operation.endedAt === undefined) return;
    if (operation.outcome) span.setAttribute('runlight.compaction.outcome', operation.outcome);
    if (operation.phase === 'failed') {
      span.setAttribute('runlight.failure.code', 'compaction_failure');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'compaction_failure' });
    }
    const seconds = secondsBetween(operation.startedAt, operation.endedAt);
    if (seconds !== undefined)
      this.#metrics?.compaction(seconds, { 'runlight.operation.phase': operation.phase });
    span.end(at(operation.endedAt));
    this.#compactions.delete(operation.id);
  }

  #modelRequest(operation: RunOperation): void {
    const key = requestKey(operation.id);
    const attempt = operation.attempt ?? 1;
    let request = this.#requests.get(key);
    if (!request) {
      const startedAt = operation.requestStartedAt ?? operation.startedAt;
      const model = this.model?.modelId;
      const span = this.#tracer.startSpan(
        model ? `chat ${model}` : 'chat',
        {
          kind: SpanKind.CLIENT,
          startTime: at(startedAt),
          attributes: {
            ...this.#operationAttributes(operation),
            'gen_ai.operation.name': 'chat',
            ...(model ? { 'gen_ai.request.model': model } : {}),
            ...(this.model?.provider ? { 'gen_ai.provider.name': this.model.provider } : {}),
          },
        },
        this.context,
      );
      request = { span, startedAt, firstOutput: false };
      this.#requests.set(key, request);
    } else if (operation.phase === 'started' && attempt > 1) {
      request.span.addEvent(
        'runlight.attempt.started',
        { 'runlight.attempt': attempt, 'runlight.operation.id': operation.id },
        at(operation.startedAt),
      );
    }
    const { span } = request;
    span.setAttributes({
      'runlight.attempt': attempt,
      'runlight.operation.phase': operation.phase,
    });

    if (operation.firstOutputAt !== undefined && !request.firstOutput) {
      request.firstOutput = true;
      span.addEvent(
        'runlight.first_output',
        { 'runlight.attempt': attempt },
        at(operation.firstOutputAt),
      );
      const attemptSeconds = secondsBetween(operation.startedAt, operation.firstOutputAt);
      const waitSeconds = secondsBetween(request.startedAt, operation.firstOutputAt);
      if (waitSeconds !== undefined)
        span.setAttribute('runlight.time_to_first_output_ms', Math.round(waitSeconds * 1000));
      const metricAttributes = this.#metricAttributes();
      if (attemptSeconds !== undefined)
        this.#metrics?.timeToFirstOutput(attemptSeconds, metricAttributes);
      if (waitSeconds !== undefined) this.#metrics?.providerWait(waitSeconds, metricAttributes);
    }
    if (operation.endedAt === undefined) return;

    if (operation.phase === 'failed' && operation.willRetry) {
      // The request goes on with a next attempt: this one is an event of its span.
      span.addEvent(
        'runlight.attempt.failed',
        {
          'runlight.attempt': attempt,
          'runlight.operation.id': operation.id,
          ...(operation.failureReason
            ? { 'runlight.failure.reason': operation.failureReason }
            : {}),
        },
        at(operation.endedAt),
      );
      this.#metrics?.retry({ 'runlight.failure.reason': operation.failureReason ?? 'other' });
      return;
    }
    if (operation.phase === 'failed') {
      span.setAttribute('runlight.failure.code', 'provider_failure');
      if (operation.failureReason)
        span.setAttribute('runlight.failure.reason', operation.failureReason);
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'provider_failure' });
    }
    if (!request.firstOutput) {
      // No first output: the whole request was provider wait.
      const waitSeconds = secondsBetween(request.startedAt, operation.endedAt);
      if (waitSeconds !== undefined)
        this.#metrics?.providerWait(waitSeconds, this.#metricAttributes());
    }
    span.end(at(operation.endedAt));
    this.#requests.delete(key);
  }

  #operationAttributes(operation: RunOperation): Attributes {
    return {
      'runlight.run.id': this.runId,
      'runlight.operation.id': operation.id,
      'runlight.operation.kind': operation.kind,
      ...(operation.step === undefined ? {} : { 'runlight.step': operation.step }),
    };
  }

  #metricAttributes(): Attributes {
    return this.model?.provider ? { 'gen_ai.provider.name': this.model.provider } : {};
  }
}

/** A model request's identity across its attempts: the operation id without `:attempt-<k>`. */
export function requestKey(operationId: string): string {
  return operationId.replace(/:attempt-\d+$/, '');
}
