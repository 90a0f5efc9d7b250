import type { RunDeltaEvent } from './run-event';
import { type ProtocolIssue, ProtocolValidationError } from './validation';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown, min: number): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= min;

/**
 * The structural check of a live delta a server receives from its own runtime through an event
 * bus (Redis, PostgreSQL NOTIFY): the fields the server acts on — `type`, `runId`,
 * `baseRevision`, `seq`, `fencingToken` — and a chunk that is an object with a string `type`.
 * It is what crosses that boundary (the runtime's own output, written by the same code): a
 * foreign writer on the bus's keys or a format from a newer version is refused, not crashed on,
 * at a fraction of `RunDeltaEventSchema`'s cost per delta. The chunk's content is the client's
 * to validate (`safeParseServedRunEvent`), as every event it receives.
 *
 * @example
 * const value = JSON.parse(text);
 * if (isRunDeltaShape(value)) deliver(value);
 * else onError(runDeltaShapeError(value));
 */
export function isRunDeltaShape(value: unknown): value is RunDeltaEvent {
  if (!isObject(value)) return false;
  const { chunk, fencingToken } = value;
  return (
    value.type === 'run-delta' &&
    typeof value.runId === 'string' &&
    value.runId !== '' &&
    isCount(value.baseRevision, 0) &&
    isCount(value.seq, 1) &&
    (fencingToken === undefined || isCount(fencingToken, 1)) &&
    isObject(chunk) &&
    typeof chunk.type === 'string'
  );
}

/** Why `value` is not a delta's shape (`isRunDeltaShape`), as a `ProtocolValidationError`. */
export function runDeltaShapeError(value: unknown): ProtocolValidationError {
  const issues: ProtocolIssue[] = [];
  const issue = (path: string, message: string) => issues.push({ path, message });
  if (!isObject(value)) issue('(root)', 'must be an object');
  else {
    if (value.type !== 'run-delta') issue('type', 'must be "run-delta"');
    if (typeof value.runId !== 'string' || value.runId === '')
      issue('runId', 'must be a non-empty string');
    if (!isCount(value.baseRevision, 0)) issue('baseRevision', 'must be an integer, 0 or more');
    if (!isCount(value.seq, 1)) issue('seq', 'must be an integer, 1 or more');
    if (value.fencingToken !== undefined && !isCount(value.fencingToken, 1))
      issue('fencingToken', 'must be an integer, 1 or more');
    if (!isObject(value.chunk) || typeof value.chunk.type !== 'string')
      issue('chunk', 'must be an object with a string type');
  }
  return new ProtocolValidationError('RunDeltaEvent', issues);
}
