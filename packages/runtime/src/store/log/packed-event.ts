import type { DurableRunEvent, RunOperation, UIMessageChunk } from '@runlight/protocol';
import type { StoredRunEvent } from './evolve-run';

/**
 * The packed form in which the store passes a durable event to its driver (issue 39): the same
 * facts with what the log's order or the event's own fields already say left out, so that an
 * append of 32 short tokens costs about its text instead of about three times it.
 *
 * - `p` the kind (`s` run-status, `o` run-operation, `a` assistant-append, `c` checkpoint),
 *   `r` the revision, `t` the time (`at`) in epoch milliseconds, `l` the lease expiry as
 *   milliseconds after `t` (absent: `null`, nobody holds the run);
 * - every other timestamp (an operation's `startedAt`, …) as milliseconds after `t`;
 * - an append's `baseRevision` only when it is not `r - 1`, its plain deltas as tuples
 *   (`["t", id, delta]` text, `["r", id, delta]` reasoning, `["i", toolCallId, delta]` tool
 *   input) and its other chunks as they are;
 * - a status change's `owner` and `failure` only when not null;
 * - an operation's `kind`, `step` and `attempt` only when its id does not already name them
 *   (`model-request:step-0:…:attempt-1`); `null` when absent although the id names one.
 *
 * An event is packed only when unpacking gives it back exactly (checked on every write); any
 * other is stored whole, as before (`StoredRunEvent`) — and both forms are read back.
 *
 * @example
 * packEvent(event); // { p: 'a', r: 6, t: 1796423752082, l: 30000, m: 'msg-1', c: [['t', 'text-0', 'w29 w30 ']] }
 */
export interface PackedRunEvent {
  p: 's' | 'o' | 'a' | 'c';
  r: number;
  t: number;
  l?: number;
  /** Append: `messageId`; checkpoint: the message. */
  m?: unknown;
  /** Append: `baseRevision`, when not `r - 1`. */
  b?: number;
  /** Append: the chunks; status: the change. */
  c?: unknown;
  /** Status: `status`, `owner`, `fencingToken`, `failure`, `trace`. */
  s?: string;
  o?: unknown;
  f?: number;
  x?: unknown;
  trace?: unknown;
}

/** What a driver stores per event: the packed form, or the whole event (earlier writes). */
export type DriverRunEvent = PackedRunEvent | StoredRunEvent;

/** What a driver reads off the events it stores: the columns a head is indexed by. */
export interface StoredEventHead {
  revision: number;
  /** When the event was committed (ISO 8601). */
  at: string;
  /** The lease expiry it leaves (null: nobody holds the run). */
  leaseExpiresAt: string | null;
  /** The run's status after a `run-status` event; `null` for the other kinds. */
  status: string | null;
}

const KINDS = { 'run-status': 's', 'run-operation': 'o', 'assistant-append': 'a' } as const;
const TYPES: Record<string, DurableRunEvent['type']> = {
  s: 'run-status',
  o: 'run-operation',
  a: 'assistant-append',
  c: 'assistant-checkpoint',
};
const OPERATION_TIMES = [
  'startedAt',
  'firstOutputAt',
  'endedAt',
  'requestStartedAt',
  'retryAt',
] as const;
const DELTAS = { 'text-delta': 't', 'reasoning-delta': 'r', 'tool-input-delta': 'i' } as const;
const DELTA_TYPES: Record<string, keyof typeof DELTAS> = {
  t: 'text-delta',
  r: 'reasoning-delta',
  i: 'tool-input-delta',
};

/** True for the packed form (a whole event has a `type`). */
export function isPackedEvent(stored: unknown): stored is PackedRunEvent {
  return typeof stored === 'object' && stored !== null && 'p' in stored && !('type' in stored);
}

/** The revision of a stored event of either form. */
export function storedRevisionOf(event: DriverRunEvent): number {
  return isPackedEvent(event) ? event.r : event.revision;
}

/** The revision, time, lease expiry and status a driver indexes, of either form. */
export function storedEventHead(event: DriverRunEvent): StoredEventHead {
  if (isPackedEvent(event)) {
    const at = new Date(event.t).toISOString();
    return {
      revision: event.r,
      at,
      leaseExpiresAt: event.l === undefined ? null : new Date(event.t + event.l).toISOString(),
      status: event.p === 's' ? String(event.s) : null,
    };
  }
  return {
    revision: event.revision,
    at: event.at,
    leaseExpiresAt: event.leaseExpiresAt ?? null,
    status: event.type === 'run-status' ? event.status : null,
  };
}

/**
 * The form the store passes to its driver: packed when that reads back exactly, else the whole
 * event without its `runId` (an unusual timestamp, a field this codec does not know).
 */
export function packEvent(event: DurableRunEvent): DriverRunEvent {
  const packed = tryPack(event);
  if (packed !== null && sameJson(unpackStoredEvent(event.runId, packed), event)) return packed;
  const { runId: _runId, ...stored } = event;
  return stored as StoredRunEvent;
}

/**
 * A stored event (either form) as the durable event it records, `runId` put back — unchecked:
 * the caller validates it (`safeParseDurableRunEvent`), so a malformed row is refused there.
 */
export function unpackStoredEvent(runId: string, stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null) return stored;
  if (!isPackedEvent(stored)) {
    const { type, runId: storedRunId, ...rest } = stored as { type?: unknown; runId?: unknown };
    return { type, runId: storedRunId ?? runId, ...rest };
  }
  const { p, r, t, l, ...rest } = stored;
  const type = TYPES[p];
  if (type === undefined || typeof t !== 'number' || (l !== undefined && typeof l !== 'number')) {
    return { type: `packed:${String(p)}`, runId, revision: r };
  }
  const time = (offset: unknown) =>
    typeof offset === 'number' ? new Date(t + offset).toISOString() : offset;
  const head = {
    type,
    runId,
    revision: r,
    at: new Date(t).toISOString(),
    leaseExpiresAt: l === undefined ? null : time(l),
  };
  switch (p) {
    case 's': {
      const { c, s, o, f, x, ...more } = rest;
      return {
        ...head,
        change: c,
        status: s,
        owner: o ?? null,
        fencingToken: f,
        failure: x ?? null,
        ...more,
      };
    }
    case 'o':
      return { ...head, operation: unpackOperation(rest.o, time) };
    case 'a': {
      const { m, b, c } = rest;
      const chunks = Array.isArray(c) ? c.map(unpackChunk) : c;
      return { ...head, messageId: m, baseRevision: b ?? r - 1, chunks };
    }
    default:
      return { ...head, checkpoint: { message: rest.m, revision: r } };
  }
}

/**
 * A stored event of either form as the whole event without its `runId` (what a driver stored
 * before packing), for code that inspects what is written (fault injection, byte counts).
 */
export function wholeStoredEvent(stored: DriverRunEvent): StoredRunEvent {
  if (!isPackedEvent(stored)) return stored;
  const { runId: _runId, ...whole } = unpackStoredEvent('_', stored) as { runId?: string };
  return whole as StoredRunEvent;
}

function tryPack(event: DurableRunEvent): PackedRunEvent | null {
  const t = Date.parse(event.at);
  if (!Number.isFinite(t)) return null;
  const offset = (value: string) => Date.parse(value) - t;
  const head: PackedRunEvent = {
    p: event.type === 'assistant-checkpoint' ? 'c' : KINDS[event.type],
    r: event.revision,
    t,
  };
  if (event.leaseExpiresAt) head.l = offset(event.leaseExpiresAt);
  switch (event.type) {
    case 'run-status': {
      const {
        type,
        runId,
        revision,
        at,
        leaseExpiresAt,
        change,
        status,
        owner,
        fencingToken,
        failure,
        ...more
      } = event;
      return {
        ...head,
        c: change,
        s: status,
        ...(owner === null ? {} : { o: owner }),
        f: fencingToken,
        ...(failure === null ? {} : { x: failure }),
        ...more,
      };
    }
    case 'run-operation':
      return { ...head, o: packOperation(event.operation, offset) };
    case 'assistant-append':
      return {
        ...head,
        m: event.messageId,
        ...(event.baseRevision === event.revision - 1 ? {} : { b: event.baseRevision }),
        c: event.chunks.map(packChunk),
      };
    case 'assistant-checkpoint':
      return { ...head, m: event.checkpoint.message };
  }
}

/** What an operation id names: `<kind>:…step-<n>…:attempt-<n>`. */
function namedBy(id: string) {
  const kind = id.slice(0, id.indexOf(':'));
  const step = /(?:^|[^0-9A-Za-z])step-(\d+)(?:$|[^0-9A-Za-z])/.exec(id)?.[1];
  const attempt = /(?:^|[^0-9A-Za-z])attempt-(\d+)$/.exec(id)?.[1];
  return {
    kind: kind === 'model-request' || kind === 'compaction' ? kind : undefined,
    step: step === undefined ? undefined : Number(step),
    attempt: attempt === undefined ? undefined : Number(attempt),
  };
}

const IMPLIED = ['kind', 'step', 'attempt'] as const;

function packOperation(operation: RunOperation, offset: (value: string) => number) {
  const packed: Record<string, unknown> = { ...operation };
  for (const key of OPERATION_TIMES) {
    const value = operation[key];
    if (value !== undefined) packed[key] = offset(value);
  }
  const named = namedBy(operation.id);
  for (const key of IMPLIED) {
    if (operation[key] === named[key]) delete packed[key];
    else if (operation[key] === undefined) packed[key] = null;
  }
  return packed;
}

function unpackOperation(value: unknown, time: (offset: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const packed = value as Record<string, unknown>;
  const operation: Record<string, unknown> = {};
  const named = typeof packed.id === 'string' ? namedBy(packed.id) : undefined;
  for (const key of ['id', ...IMPLIED]) {
    const stored = packed[key];
    const field = stored === undefined ? named?.[key as keyof typeof named] : stored;
    if (field !== undefined && field !== null) operation[key] = field;
  }
  for (const [key, field] of Object.entries(packed)) {
    if (key === 'id' || (IMPLIED as readonly string[]).includes(key)) continue;
    operation[key] = (OPERATION_TIMES as readonly string[]).includes(key) ? time(field) : field;
  }
  return operation;
}

function packChunk(chunk: UIMessageChunk): unknown {
  if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') {
    if (Object.keys(chunk).length === 3) return [DELTAS[chunk.type], chunk.id, chunk.delta];
  } else if (chunk.type === 'tool-input-delta' && Object.keys(chunk).length === 3) {
    return [DELTAS[chunk.type], chunk.toolCallId, chunk.inputTextDelta];
  }
  return chunk;
}

function unpackChunk(chunk: unknown): unknown {
  if (!Array.isArray(chunk)) return chunk;
  const [kind, id, delta] = chunk as [unknown, unknown, unknown];
  const type = DELTA_TYPES[String(kind)];
  if (type === undefined || chunk.length !== 3) return { type: 'packed-chunk' };
  return type === 'tool-input-delta'
    ? { type, toolCallId: id, inputTextDelta: delta }
    : { type, id, delta };
}

/** Deep equality of two JSON values (key order ignored; `undefined` members as absent). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => sameJson(item, other[index]));
  }
  const left = Object.entries(a).filter(([, value]) => value !== undefined);
  const right = Object.entries(b).filter(([, value]) => value !== undefined);
  if (left.length !== right.length) return false;
  const values = new Map(right);
  return left.every(([key, value]) => values.has(key) && sameJson(value, values.get(key)));
}
