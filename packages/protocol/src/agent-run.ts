import * as z from 'zod/mini';
import { RunHandOffSchema } from './run-hand-off';
import { RunOperationSchema } from './run-operation';
import { RunTraceSchema } from './run-trace';
import { TimestampSchema } from './timestamp';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

export function isTerminalStatus(status: RunStatus): status is TerminalRunStatus {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * Failure codes name *who owned the failure*. A lost compare-and-set of the lifecycle is
 * `storage_conflict`, never `provider_failure`; a store that kept failing (it threw, timed out
 * or refused the connection) after the runtime's bounded retries is `storage_unavailable`.
 */
export const FAILURE_CODES = [
  'provider_failure',
  'storage_conflict',
  'tool_failure',
  'compaction_failure',
  'ownership_lost',
  'storage_unavailable',
  'internal',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export const RunIdSchema = z
  .string()
  .check(
    z.minLength(1, 'must be a non-empty string'),
    z.maxLength(200, 'must be at most 200 characters'),
    z.regex(/^[A-Za-z0-9._~:-]+$/, 'may only contain letters, digits and . _ ~ : -'),
  );

/**
 * A failure carries a code and optionally the operation it belongs to — never free text:
 * provider error text can hold prompts, keys or PII and stays in server logs.
 */
export const RunFailureSchema = z.strictObject({
  code: z.enum(FAILURE_CODES),
  operationId: z.optional(z.string().check(z.minLength(1))),
});
export type RunFailure = z.infer<typeof RunFailureSchema>;

const Revision = z
  .number()
  .check(z.int('must be an integer'), z.minimum(0, 'must be zero or more'));

const agentRunShape = {
  id: RunIdSchema,
  status: z.enum(RUN_STATUSES),
  owner: z.nullable(z.string().check(z.minLength(1))),
  /** +1 on every acquisition. */
  fencingToken: Revision,
  /** +1 on every successful mutation: the run's causal clock. */
  revision: Revision,
  lastOperation: z.nullable(RunOperationSchema),
  failure: z.nullable(RunFailureSchema),
  /**
   * When the current owner's lease expires (server wall clock), or null when nobody holds the
   * run (queued, ended). Every owned mutation renews it. A non-terminal run whose lease has
   * expired has a silent owner: its worker stopped responding.
   */
  leaseExpiresAt: z.nullable(TimestampSchema),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  /** The run's trace, when it was created with telemetry on (see `RunTraceSchema`). */
  trace: z.optional(RunTraceSchema),
  /**
   * The latest planned hand-off (a graceful shutdown), kept until the acquisition after the
   * one that received it (see `RunHandOffSchema`); absent when there was none.
   */
  handOff: z.optional(RunHandOffSchema),
};

function checkFailure(
  run: { status: RunStatus; failure: RunFailure | null },
  context: z.core.$RefinementCtx,
): void {
  if (run.status === 'failed' && run.failure === null) {
    context.addIssue({
      code: 'custom',
      path: ['failure'],
      message: 'is required on a failed run',
    });
  }
  if (run.status !== 'failed' && run.failure !== null) {
    context.addIssue({
      code: 'custom',
      path: ['failure'],
      message: 'is only allowed on a failed run',
    });
  }
}

/** The snapshot record of one run, as stored (`owner` names the worker process). */
export const AgentRunSchema = z.strictObject(agentRunShape).check(z.superRefine(checkFailure));

export type AgentRun = z.infer<typeof AgentRunSchema>;

const { fencingToken: _fencingToken, ...publicRunShape } = agentRunShape;

/**
 * The run record as the HTTP handlers send it by default (without `exposeInternals`): no
 * `fencingToken`, and `owner` an opaque holder tag — null when nobody holds the run, else an id
 * of the current acquisition that names no host or process. Compare tags for equality only.
 */
export const PublicAgentRunSchema = z
  .strictObject(publicRunShape)
  .check(z.superRefine(checkFailure));

export type PublicAgentRun = z.infer<typeof PublicAgentRunSchema>;

/**
 * What a client accepts as a run record: the stored form (`exposeInternals`) or the public
 * one — `fencingToken` may be absent, `owner` a worker id or a holder tag.
 */
export const ServedAgentRunSchema = z
  .strictObject({ ...agentRunShape, fencingToken: z.optional(Revision) })
  .check(z.superRefine(checkFailure));
