import * as z from 'zod/mini';
import { AgentRunSchema } from './agent-run';
import { ApprovalsBodySchema } from './approvals-body';
import { AssistantCheckpointSchema } from './assistant-checkpoint';
import { RunDeltaBatchSchema } from './run-delta-batch';
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

function toIssues(error: z.core.$ZodError): ProtocolIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.join('.'),
    message: issue.message,
  }));
}

/**
 * The schemas are `zod/mini` (a browser that validates snapshots and events carries a fraction
 * of full zod), which loads no locale: where zod's messages are not configured (full zod
 * configures English when it loads), a rule without a message of its own reads as below.
 */
const messages = (issue: z.core.$ZodRawIssue): string | undefined => {
  if (z.config().localeError !== undefined) return undefined;
  const quoted = (values: readonly unknown[]) =>
    values.map((value) => JSON.stringify(value)).join(', ');
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, received ${issue.input === null ? 'null' : typeof issue.input}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length === 1 ? '' : 's'} ${quoted(issue.keys)}`;
    case 'invalid_value':
      return `expected one of ${quoted(issue.values)}`;
    case 'too_small':
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      return `must be at most ${issue.maximum}`;
    case 'invalid_union':
      return 'matches none of the allowed forms';
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return undefined;
  }
};

/**
 * `safeParser` and `parser` are pure (`@__PURE__` at each call): a bundle keeps only the
 * schemas its code parses with, e.g. a browser the served forms and not the stored ones.
 */
function safeParser<T>(name: string, schema: z.ZodMiniType<T>) {
  return (value: unknown): SafeParseResult<T> => {
    const result = schema.safeParse(value, { error: messages });
    return result.success
      ? { success: true, data: result.data }
      : { success: false, error: new ProtocolValidationError(name, toIssues(result.error)) };
  };
}

function parser<T>(safeParse: (value: unknown) => SafeParseResult<T>) {
  return (value: unknown): T => {
    const result = safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  };
}

export const safeParseRunOperation = /* @__PURE__ */ safeParser('RunOperation', RunOperationSchema);
export const parseRunOperation = /* @__PURE__ */ parser(safeParseRunOperation);
export const safeParseAgentRun = /* @__PURE__ */ safeParser('AgentRun', AgentRunSchema);
export const parseAgentRun = /* @__PURE__ */ parser(safeParseAgentRun);
export const safeParseRunTrace = /* @__PURE__ */ safeParser('RunTrace', RunTraceSchema);
export const parseRunTrace = /* @__PURE__ */ parser(safeParseRunTrace);
export const safeParseAssistantCheckpoint = /* @__PURE__ */ safeParser(
  'AssistantCheckpoint',
  AssistantCheckpointSchema,
);
export const parseAssistantCheckpoint = /* @__PURE__ */ parser(safeParseAssistantCheckpoint);
export const safeParseRunEvent = /* @__PURE__ */ safeParser('RunEvent', RunEventSchema);
export const parseRunEvent = /* @__PURE__ */ parser(safeParseRunEvent);
export const safeParseDurableRunEvent = /* @__PURE__ */ safeParser(
  'DurableRunEvent',
  DurableRunEventSchema,
);
export const parseDurableRunEvent = /* @__PURE__ */ parser(safeParseDurableRunEvent);
export const safeParseRunSnapshot = /* @__PURE__ */ safeParser('RunSnapshot', RunSnapshotSchema);
export const parseRunSnapshot = /* @__PURE__ */ parser(safeParseRunSnapshot);
/**
 * A snapshot or event as a client receives it, in either form (stored or public): checked as
 * strictly, but `fencingToken` may be absent. Typed as the stored form; a missing token reads
 * `undefined` (the server filtered the previous owners' deltas itself).
 */
export const safeParseServedRunSnapshot = /* @__PURE__ */ safeParser(
  'RunSnapshot',
  ServedRunSnapshotSchema as unknown as z.ZodMiniType<z.infer<typeof RunSnapshotSchema>>,
);
export const parseServedRunSnapshot = /* @__PURE__ */ parser(safeParseServedRunSnapshot);
export const safeParseServedRunEvent = /* @__PURE__ */ safeParser(
  'RunEvent',
  ServedRunEventSchema as unknown as z.ZodMiniType<z.infer<typeof RunEventSchema>>,
);
export const parseServedRunEvent = /* @__PURE__ */ parser(safeParseServedRunEvent);
export const safeParseRunDeltaBatch = /* @__PURE__ */ safeParser(
  'RunDeltaBatch',
  RunDeltaBatchSchema,
);
export const parseRunDeltaBatch = /* @__PURE__ */ parser(safeParseRunDeltaBatch);
export const safeParseRunReset = /* @__PURE__ */ safeParser('RunReset', RunResetSchema);
export const parseRunReset = /* @__PURE__ */ parser(safeParseRunReset);
export const safeParseRunUnauthorized = /* @__PURE__ */ safeParser(
  'RunUnauthorized',
  RunUnauthorizedSchema,
);
export const parseRunUnauthorized = /* @__PURE__ */ parser(safeParseRunUnauthorized);
export const safeParseRunEventRef = /* @__PURE__ */ safeParser('RunEventRef', RunEventRefSchema);
export const parseRunEventRef = /* @__PURE__ */ parser(safeParseRunEventRef);
export const safeParseAssistantAppendEvent = /* @__PURE__ */ safeParser(
  'AssistantAppendEvent',
  AssistantAppendEventSchema,
);
export const parseAssistantAppendEvent = /* @__PURE__ */ parser(safeParseAssistantAppendEvent);
export const safeParseRunOperationsPage = /* @__PURE__ */ safeParser(
  'RunOperationsPage',
  RunOperationsPageSchema,
);
export const parseRunOperationsPage = /* @__PURE__ */ parser(safeParseRunOperationsPage);
/**
 * The body of `POST …/runs/:id/approvals`, checked by the route that receives it, by the store
 * that records it as a control request, and by the client before it sends it.
 *
 * @example
 * const parsed = safeParseApprovalsBody(await request.json());
 * if (!parsed.success) return Response.json({ error: parsed.error.issues[0] }, { status: 400 });
 */
export const safeParseApprovalsBody = /* @__PURE__ */ safeParser(
  'ApprovalsBody',
  ApprovalsBodySchema,
);
export const parseApprovalsBody = /* @__PURE__ */ parser(safeParseApprovalsBody);
