import type { z } from 'zod';
import { AgentRunSchema } from './agent-run';
import { AssistantCheckpointSchema } from './assistant-checkpoint';
import {
  AssistantAppendEventSchema,
  DurableRunEventSchema,
  RunEventRefSchema,
  RunEventSchema,
  RunResetSchema,
  RunUnauthorizedSchema,
  ServedRunEventSchema,
} from './run-event';
import { RunOperationSchema } from './run-operation';
import { RunOperationsPageSchema } from './run-operations-page';
import { RunSnapshotSchema, ServedRunSnapshotSchema } from './run-snapshot';
import { RunTraceSchema } from './run-trace';

const MARKER = Symbol.for('runlight.error.ProtocolValidationError');

export interface ProtocolIssue {
  /** Dotted path of the offending field, e.g. `operation.firstOutputAt`; `(root)` for the value. */
  path: string;
  /** The rule that was broken, e.g. `is required in phase first-output`. */
  message: string;
}

/**
 * Thrown (or returned by the `safe…` forms) when a value crossing a trust boundary does not
 * match its protocol schema. The message names the schema, the field and the rule.
 */
export class ProtocolValidationError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'ProtocolValidationError';
  readonly schema: string;
  readonly issues: readonly ProtocolIssue[];

  constructor(schema: string, issues: readonly ProtocolIssue[]) {
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    super(`Invalid ${schema}: ${summary}`);
    this.schema = schema;
    this.issues = issues;
  }

  static isInstance(error: unknown): error is ProtocolValidationError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

export type SafeParseResult<T> =
  | { success: true; data: T }
  | { success: false; error: ProtocolValidationError };

function toIssues(error: z.ZodError): ProtocolIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.join('.'),
    message: issue.message,
  }));
}

function parsers<T>(name: string, schema: z.ZodType<T>) {
  const safeParse = (value: unknown): SafeParseResult<T> => {
    const result = schema.safeParse(value);
    return result.success
      ? { success: true, data: result.data }
      : { success: false, error: new ProtocolValidationError(name, toIssues(result.error)) };
  };
  const parse = (value: unknown): T => {
    const result = safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  };
  return [parse, safeParse] as const;
}

export const [parseRunOperation, safeParseRunOperation] = parsers(
  'RunOperation',
  RunOperationSchema,
);
export const [parseAgentRun, safeParseAgentRun] = parsers('AgentRun', AgentRunSchema);
export const [parseRunTrace, safeParseRunTrace] = parsers('RunTrace', RunTraceSchema);
export const [parseAssistantCheckpoint, safeParseAssistantCheckpoint] = parsers(
  'AssistantCheckpoint',
  AssistantCheckpointSchema,
);
export const [parseRunEvent, safeParseRunEvent] = parsers('RunEvent', RunEventSchema);
export const [parseDurableRunEvent, safeParseDurableRunEvent] = parsers(
  'DurableRunEvent',
  DurableRunEventSchema,
);
export const [parseRunSnapshot, safeParseRunSnapshot] = parsers('RunSnapshot', RunSnapshotSchema);
/**
 * A snapshot or event as a client receives it, in either form (stored or public): checked as
 * strictly, but `fencingToken` may be absent. Typed as the stored form; a missing token reads
 * `undefined` (the server filtered the previous owners' deltas itself).
 */
export const [parseServedRunSnapshot, safeParseServedRunSnapshot] = parsers(
  'RunSnapshot',
  ServedRunSnapshotSchema as unknown as z.ZodType<z.infer<typeof RunSnapshotSchema>>,
);
export const [parseServedRunEvent, safeParseServedRunEvent] = parsers(
  'RunEvent',
  ServedRunEventSchema as unknown as z.ZodType<z.infer<typeof RunEventSchema>>,
);
export const [parseRunReset, safeParseRunReset] = parsers('RunReset', RunResetSchema);
export const [parseRunUnauthorized, safeParseRunUnauthorized] = parsers(
  'RunUnauthorized',
  RunUnauthorizedSchema,
);
export const [parseRunEventRef, safeParseRunEventRef] = parsers('RunEventRef', RunEventRefSchema);
export const [parseAssistantAppendEvent, safeParseAssistantAppendEvent] = parsers(
  'AssistantAppendEvent',
  AssistantAppendEventSchema,
);
export const [parseRunOperationsPage, safeParseRunOperationsPage] = parsers(
  'RunOperationsPage',
  RunOperationsPageSchema,
);
