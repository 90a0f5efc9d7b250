/**
 * Where a watcher of one run stands in its event stream, by content: `revision` the highest
 * durable revision it holds, `base`/`seq` the last live delta it holds on the assistant write at
 * `base` (`null`/0: none since its last assistant write). The same three numbers as the wire
 * cursor `"R"` / `"R:B:S"` (`cursorOf`), kept apart so a shared stream can be cut for watchers
 * that joined at different points.
 */
export interface StreamPosition {
  revision: number;
  base: number | null;
  seq: number;
}

/** One SSE message as the leading tab forwards it (`id` absent: a reset, a notice). */
export interface StreamMessage {
  event: string;
  id?: string;
  data: string;
}

const CURSOR = /^(0|[1-9]\d*)(?::(0|[1-9]\d*):([1-9]\d*))?$/;

/**
 * Parses a wire cursor (`"R"` or `"R:B:S"`); `null` when it is not one.
 *
 * @example
 * parsePosition('12:11:4'); // { revision: 12, base: 11, seq: 4 }
 */
export function parsePosition(cursor: string): StreamPosition | null {
  const match = CURSOR.exec(cursor);
  if (match === null) return null;
  const revision = Number(match[1]);
  if (match[2] === undefined) return { revision, base: null, seq: 0 };
  return { revision, base: Number(match[2]), seq: Number(match[3]) };
}

/** The wire cursor of `position`. */
export function formatPosition(position: StreamPosition): string {
  return position.base === null
    ? `${position.revision}`
    : `${position.revision}:${position.base}:${position.seq}`;
}

const isDelta = (event: string) => event === 'run-delta' || event === 'run-deltas';

/**
 * Where a watcher at `position` stands after `message`, or `null` when it already holds it (a
 * durable revision at or below its own, a delta at or below its own on the same write). A
 * message without a cursor (a reset, an access notice) is always passed on. This is what
 * keeps a watcher's stream free of duplicates when it joins a stream that started elsewhere,
 * or moves to another tab's stream.
 *
 * @example
 * advance({ revision: 7, base: null, seq: 0 }, { event: 'run-status', id: '7', data }); // null
 */
export function advance(position: StreamPosition, message: StreamMessage): StreamPosition | null {
  if (message.id === undefined) return position;
  const at = parsePosition(message.id);
  if (at === null) return position;
  if (isDelta(message.event)) {
    if (at.base === null) return position;
    const newer =
      position.base === null ||
      at.base > position.base ||
      (at.base === position.base && at.seq > position.seq);
    return newer
      ? { revision: Math.max(position.revision, at.revision), base: at.base, seq: at.seq }
      : null;
  }
  if (at.revision <= position.revision) return null;
  // An assistant write drops the delta part (its id is pure); another durable event keeps it.
  return at.base === null
    ? { revision: at.revision, base: null, seq: 0 }
    : { revision: at.revision, base: position.base, seq: position.seq };
}

/**
 * Whether a stream whose first message came after `start` can serve a watcher at `position`
 * without a gap: it holds every durable revision the stream began after, and the stream did
 * not begin part-way through deltas it lacks. A watcher with no deltas facing a stream that
 * began after some is not served (it may need those deltas; the stream is re-opened for it).
 */
export function covers(start: StreamPosition, position: StreamPosition): boolean {
  if (position.revision < start.revision) return false;
  if (start.base === null) return true;
  return (
    position.base !== null &&
    position.base >= start.base &&
    (position.base > start.base || position.seq >= start.seq)
  );
}
