import * as z from 'zod/mini';
import { TimestampSchema } from './timestamp';

/**
 * The phase machine of one operation (ADR 0174):
 *
 * ```
 *   started ──► first-output ──► completed | failed | cancelled     (model-request)
 *      └───────────────────────► completed | failed | cancelled     (both kinds)
 * ```
 *
 * Compaction never has `first-output`. A phase only moves forward; `startedAt` is the
 * original observation of `started` and is carried unchanged through every later phase.
 */
export const OPERATION_KINDS = ['model-request', 'compaction'] as const;
export const OPERATION_PHASES = [
  'started',
  'first-output',
  'completed',
  'failed',
  'cancelled',
] as const;
export const TERMINAL_OPERATION_PHASES = ['completed', 'failed', 'cancelled'] as const;
export const COMPACTION_OUTCOMES = ['compacted', 'not_needed'] as const;
/**
 * Why a model-request attempt failed, derived from status codes and error classes — never from
 * provider text: `rate_limited` (429), `server_error` (5xx), `timeout`, `network` (reset,
 * refused, DNS), `other`.
 */
export const MODEL_FAILURE_REASONS = [
  'rate_limited',
  'server_error',
  'timeout',
  'network',
  'other',
] as const;

export type OperationKind = (typeof OPERATION_KINDS)[number];
export type OperationPhase = (typeof OPERATION_PHASES)[number];
export type TerminalOperationPhase = (typeof TERMINAL_OPERATION_PHASES)[number];
export type CompactionOutcome = (typeof COMPACTION_OUTCOMES)[number];
export type ModelFailureReason = (typeof MODEL_FAILURE_REASONS)[number];

export function isTerminalPhase(phase: OperationPhase): phase is TerminalOperationPhase {
  return phase === 'completed' || phase === 'failed' || phase === 'cancelled';
}

/** Rank of a phase in the forward-only machine; all terminal phases share the last rank. */
export function phaseRank(phase: OperationPhase): number {
  return phase === 'started' ? 0 : phase === 'first-output' ? 1 : 2;
}

/** True when an operation id names its zero-based step as the token `step-<n>`. */
export function operationIdNamesStep(id: string, step: number): boolean {
  return new RegExp(`(^|[^0-9A-Za-z])step-${step}($|[^0-9A-Za-z])`).test(id);
}

const OperationIdSchema = z
  .string()
  .check(
    z.minLength(1, 'must be a non-empty string'),
    z.maxLength(256, 'must be at most 256 characters'),
  );

const BaseOperationSchema = z.strictObject({
  id: OperationIdSchema,
  kind: z.enum(OPERATION_KINDS),
  phase: z.enum(OPERATION_PHASES),
  step: z.optional(
    z.number().check(z.int('must be an integer'), z.minimum(0, 'must be zero or more')),
  ),
  startedAt: TimestampSchema,
  firstOutputAt: z.optional(TimestampSchema),
  endedAt: z.optional(TimestampSchema),
  outcome: z.optional(z.enum(COMPACTION_OUTCOMES)),
  /** Model requests: the one-based attempt of this step's request (every SDK retry is one). */
  attempt: z.optional(
    z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
  ),
  /**
   * Model requests after a retry: `startedAt` of the request's first attempt, so a wait is
   * counted from when it really began.
   */
  requestStartedAt: z.optional(TimestampSchema),
  /** A failed model request: why, as a closed enum (never provider text). */
  failureReason: z.optional(z.enum(MODEL_FAILURE_REASONS)),
  /** A failed model request: true when the SDK will try again (a next attempt follows). */
  willRetry: z.optional(z.boolean()),
  /**
   * A failed model request that will be retried: when the next attempt is due (server clock),
   * from the provider's `retry-after-ms` / `retry-after` or the retry policy's backoff. A UI
   * counts down to it; the next attempt's `started` record follows at or just after it.
   */
  retryAt: z.optional(TimestampSchema),
  /** With `retryAt`: how many attempts the request may make in all (`maxRetries + 1`). */
  maxAttempts: z.optional(
    z.number().check(z.int('must be an integer'), z.minimum(2, 'must be 2 or more')),
  ),
});

/**
 * `lastOperation`: the one durable current/last operation of a run.
 *
 * Phase rules are schema rules; timestamps are validated for form and presence per phase,
 * never for order.
 */
function checkPhases(
  operation: z.infer<typeof BaseOperationSchema>,
  context: z.core.$RefinementCtx,
): void {
  const issue = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  const terminal = isTerminalPhase(operation.phase);

  if (operation.kind === 'model-request') {
    if (operation.step === undefined) {
      issue('step', 'is required on a model-request operation');
    } else if (!operationIdNamesStep(operation.id, operation.step)) {
      issue('id', `must contain the zero-based step as the token "step-${operation.step}"`);
    }
    if (operation.outcome !== undefined) {
      issue('outcome', 'is only allowed on a compaction operation');
    }
    if (operation.requestStartedAt !== undefined && (operation.attempt ?? 1) < 2) {
      issue('requestStartedAt', 'is only allowed on an attempt after the first');
    }
  } else {
    for (const field of [
      'attempt',
      'requestStartedAt',
      'failureReason',
      'willRetry',
      'retryAt',
      'maxAttempts',
    ] as const) {
      if (operation[field] !== undefined)
        issue(field, 'is only allowed on a model-request operation');
    }
    if (operation.phase === 'first-output') {
      issue('phase', 'first-output is not a phase of a compaction operation');
    }
    if (operation.firstOutputAt !== undefined) {
      issue('firstOutputAt', 'is not allowed on a compaction operation');
    }
    if (operation.phase === 'completed' && operation.outcome === undefined) {
      issue('outcome', 'is required on a completed compaction (compacted or not_needed)');
    }
    if (operation.phase !== 'completed' && operation.outcome !== undefined) {
      issue('outcome', 'is only allowed on a completed compaction');
    }
  }

  if (operation.phase === 'first-output' && operation.firstOutputAt === undefined) {
    issue('firstOutputAt', 'is required in phase first-output');
  }
  if (operation.phase === 'started' && operation.firstOutputAt !== undefined) {
    issue('firstOutputAt', 'is not allowed in phase started');
  }
  if (terminal && operation.endedAt === undefined) {
    issue('endedAt', `is required in the terminal phase ${operation.phase}`);
  }
  if (!terminal && operation.endedAt !== undefined) {
    issue('endedAt', `is not allowed in the non-terminal phase ${operation.phase}`);
  }
  if (operation.phase !== 'failed') {
    if (operation.failureReason !== undefined)
      issue('failureReason', 'is only allowed in phase failed');
    if (operation.willRetry !== undefined) issue('willRetry', 'is only allowed in phase failed');
  }
  for (const field of ['retryAt', 'maxAttempts'] as const) {
    if (operation[field] !== undefined && operation.willRetry !== true) {
      issue(field, 'is only allowed on a failed attempt that will be retried (willRetry: true)');
    }
  }
  if (operation.maxAttempts !== undefined && operation.maxAttempts <= (operation.attempt ?? 1)) {
    issue('maxAttempts', 'must be more than the attempt that will be retried');
  }
}

export const RunOperationSchema = BaseOperationSchema.check(z.superRefine(checkPhases));

export type RunOperation = z.infer<typeof RunOperationSchema>;
