import { BadCursorError } from './bad-cursor-error';

/**
 * Where a client stands in a run's event stream. It is the `id` of every SSE message and what a
 * client sends back in `Last-Event-ID` (or `?after=`) to resume.
 *
 * Text form: `"<R>"` or `"<R>:<B>:<S>"` (canonical decimal integers, no signs, no leading zeros)
 * - `R` (`revision`): the highest durable revision delivered so far;
 * - `B:S` (`delta`): `baseRevision` and `seq` of the last live delta delivered on top of the
 *   checkpoint at `B`; omitted when no delta has been delivered since the last checkpoint.
 *
 * A client builds the same cursor from its own state: `R` is its durable revision, `B:S` its last
 * applied delta (only while it still builds on checkpoint `B`).
 */
export interface RunCursor {
  revision: number;
  delta: { baseRevision: number; seq: number } | null;
}

/** The cursor of a client that holds nothing yet: a full replay. */
export const START_CURSOR: RunCursor = Object.freeze({ revision: 0, delta: null });

const MAX_CURSOR_LENGTH = 64;
const CURSOR_PATTERN = /^(0|[1-9][0-9]*)(?::(0|[1-9][0-9]*):([1-9][0-9]*))?$/;

/**
 * Parses a cursor sent by a client; throws `BadCursorError` for anything the server would never
 * have sent. A delta base newer than the revision is malformed: a delta is only delivered after
 * the checkpoint it builds on.
 *
 * @example
 * parseRunCursor('12');      // { revision: 12, delta: null }
 * parseRunCursor('12:10:4'); // { revision: 12, delta: { baseRevision: 10, seq: 4 } }
 * parseRunCursor('12:13:1'); // throws BadCursorError
 */
export function parseRunCursor(text: string): RunCursor {
  const shown = text.slice(0, 80);
  if (text.length > MAX_CURSOR_LENGTH) {
    throw new BadCursorError(shown, `must be at most ${MAX_CURSOR_LENGTH} characters`);
  }
  const match = CURSOR_PATTERN.exec(text);
  if (!match) {
    throw new BadCursorError(shown, 'must be "<revision>" or "<revision>:<baseRevision>:<seq>"');
  }
  const revision = Number(match[1]);
  if (!Number.isSafeInteger(revision)) throw new BadCursorError(shown, 'revision is too large');
  if (match[2] === undefined || match[3] === undefined) return { revision, delta: null };
  const baseRevision = Number(match[2]);
  const seq = Number(match[3]);
  if (!Number.isSafeInteger(seq)) throw new BadCursorError(shown, 'seq is too large');
  if (baseRevision > revision) {
    throw new BadCursorError(shown, 'the live delta base must not be newer than the revision');
  }
  return { revision, delta: { baseRevision, seq } };
}

/**
 * The text form of a cursor (the inverse of `parseRunCursor`).
 *
 * @example
 * formatRunCursor({ revision: 12, delta: { baseRevision: 10, seq: 4 } }); // '12:10:4'
 */
export function formatRunCursor(cursor: RunCursor): string {
  const { revision, delta } = cursor;
  return delta ? `${revision}:${delta.baseRevision}:${delta.seq}` : `${revision}`;
}
