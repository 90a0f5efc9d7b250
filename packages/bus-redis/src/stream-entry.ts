import {
  type DurableRunEvent,
  type RunDeltaEvent,
  type RunEvent,
  type RunStatusChange,
  safeParseRunEvent,
} from '@runlight/protocol';

/** A durable event is a row of the store's event log already: only where to find it travels. */
export interface DurablePointer {
  runId: string;
  revision: number;
  /** Lets a receiver without subscribers mind its delta buffer without reading the row. */
  type: DurableRunEvent['type'];
  change?: RunStatusChange | undefined;
}

/** One entry of a run's stream, as read back: the sender and what it carries. */
export type StreamMessage =
  | { instanceId: string; kind: 'delta'; event: RunDeltaEvent }
  | { instanceId: string; kind: 'durable'; pointer: DurablePointer };

/**
 * The field-value pairs of one stream entry: `i` the sending process, then `d` a live delta
 * (its JSON, the run id left out: the stream names the run) or `p` a durable pointer
 * (`{"r":revision,"t":type,"c":change}`).
 */
export function encodeEntry(instanceId: string, event: RunEvent): string[] {
  if (event.type === 'run-delta') {
    const { runId: _runId, ...rest } = event;
    return ['i', instanceId, 'd', JSON.stringify(rest)];
  }
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
  if (!isObject(value)) {
    return { error: new TypeError(`an entry of run ${runId}'s stream has an unknown shape`) };
  }
  if (delta !== undefined) {
    const parsed = safeParseRunEvent({ ...value, runId });
    if (parsed.success && parsed.data.type === 'run-delta') {
      return { instanceId, kind: 'delta', event: parsed.data };
    }
    return { error: parsed.success ? new TypeError('a delta entry holds no delta') : parsed.error };
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
