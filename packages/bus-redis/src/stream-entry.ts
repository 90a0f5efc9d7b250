import {
  type DurableRunEvent,
  isRunDeltaShape,
  type RunDeltaEvent,
  type RunStatusChange,
  runDeltaShapeError,
} from '@runlight/protocol';
import type { DurablePointer } from '@runlight/runtime/driver';

/** A durable event is a row of the store's event log already: only where to find it travels. */
export type { DurablePointer };

/** One entry of a run's stream, as read back: the sender and what it carries. */
export type StreamMessage =
  | { instanceId: string; kind: 'deltas'; events: RunDeltaEvent[] }
  | { instanceId: string; kind: 'durable'; pointer: DurablePointer };

/** The JSON of a delta in an entry: the run id left out (the stream names the run). */
function deltaJson(event: RunDeltaEvent): string {
  const { runId: _runId, ...rest } = event;
  return JSON.stringify(rest);
}

/**
 * The field-value pairs of one stream entry: `i` the sending process, then `d` live deltas of
 * the run, in order (a JSON array; consecutive deltas published in one event-loop turn share an
 * entry) or `p` a durable pointer (`{"r":revision,"t":type,"c":change}`).
 */
export function encodeDeltas(instanceId: string, events: readonly RunDeltaEvent[]): string[] {
  return ['i', instanceId, 'd', `[${events.map(deltaJson).join(',')}]`];
}

export function encodePointer(instanceId: string, event: DurableRunEvent): string[] {
  const pointer: { r: number; t: string; c?: string } = { r: event.revision, t: event.type };
  if (event.type === 'run-status') pointer.c = event.change;
  return ['i', instanceId, 'p', JSON.stringify(pointer)];
}

const DURABLE_TYPES = new Set<string>([
  'run-status',
  'run-operation',
  'assistant-checkpoint',
  'assistant-append',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * Reads an entry of `runId`'s stream (flat field-value pairs). Anything unexpected — a foreign
 * writer on the key, a newer format — is an error, never a crash.
 */
export function decodeEntry(
  runId: string,
  fields: readonly string[],
): StreamMessage | { error: Error } {
  let instanceId: string | undefined;
  let delta: string | undefined;
  let pointer: string | undefined;
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const value = fields[at + 1]!;
    if (fields[at] === 'i') instanceId = value;
    else if (fields[at] === 'd') delta = value;
    else if (fields[at] === 'p') pointer = value;
  }
  if (instanceId === undefined || (delta === undefined) === (pointer === undefined)) {
    return { error: new TypeError(`an entry of run ${runId}'s stream has an unknown shape`) };
  }
  let value: unknown;
  try {
    value = JSON.parse((delta ?? pointer)!);
  } catch {
    return { error: new TypeError(`an entry of run ${runId}'s stream is not JSON`) };
  }
  if (delta !== undefined) {
    if (!Array.isArray(value)) {
      return { error: new TypeError(`a delta entry of run ${runId}'s stream is not a list`) };
    }
    // The runtime's own output (another process's): a structural check, not a schema parse
    // per delta — the client validates what it receives. Each item is a fresh object of this
    // parse, so the run id goes in place.
    for (const item of value) {
      if (isObject(item)) item.runId = runId;
      if (!isRunDeltaShape(item)) return { error: runDeltaShapeError(item) };
    }
    return { instanceId, kind: 'deltas', events: value as RunDeltaEvent[] };
  }
  if (!isObject(value)) {
    return { error: new TypeError(`an entry of run ${runId}'s stream has an unknown shape`) };
  }
  const { r, t, c } = value;
  if (!Number.isInteger(r) || (r as number) < 1 || typeof t !== 'string' || !DURABLE_TYPES.has(t)) {
    return { error: new TypeError(`a pointer of run ${runId}'s stream has an unknown shape`) };
  }
  return {
    instanceId,
    kind: 'durable',
    pointer: {
      runId,
      revision: r as number,
      type: t as DurableRunEvent['type'],
      change: typeof c === 'string' ? (c as RunStatusChange) : undefined,
    },
  };
}

/**
 * An entry of the deployment's control stream: `i` the sending process, `c` the run whose
 * control request (a cancel, approval answers) was recorded — the request itself is in the
 * store, the executor reads it there.
 */
export function encodeControl(instanceId: string, runId: string): string[] {
  return ['i', instanceId, 'c', runId];
}

/** Reads an entry of the control stream; anything else on the key is an error. */
export function decodeControl(
  fields: readonly string[],
): { instanceId: string; runId: string } | { error: Error } {
  let instanceId: string | undefined;
  let runId: string | undefined;
  for (let at = 0; at + 1 < fields.length; at += 2) {
    if (fields[at] === 'i') instanceId = fields[at + 1];
    else if (fields[at] === 'c') runId = fields[at + 1];
  }
  if (instanceId === undefined || runId === undefined || runId === '') {
    return { error: new TypeError('an entry of the control stream has an unknown shape') };
  }
  return { instanceId, runId };
}
