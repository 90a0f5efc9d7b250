import {
  expandRunDeltaBatch,
  type RunDeltaEvent,
  type RunEvent,
  safeParseRunDeltaBatch,
  safeParseRunReset,
  safeParseRunUnauthorized,
  safeParseServedRunEvent,
} from '@runlight/protocol';
import type { EventSourceMessage } from 'eventsource-parser';
import { RunlightClientError } from '../errors/runlight-client-error';

/**
 * One SSE message, validated: a run event, a `reset` order, the `unauthorized` end of a stream
 * whose access the server revoked, or what was wrong with it.
 */
export type ServerMessage =
  | { kind: 'event'; event: RunEvent; id: string | undefined }
  /** A `run-deltas` message: the deltas it stands for, applied one by one as `run-delta`s. */
  | { kind: 'deltas'; events: RunDeltaEvent[]; id: string | undefined }
  | { kind: 'reset'; reason: string }
  | { kind: 'unauthorized'; error: RunlightClientError }
  | { kind: 'invalid'; error: RunlightClientError };

const EVENT_TYPES = new Set([
  'run-operation',
  'assistant-checkpoint',
  'assistant-append',
  'run-status',
  'run-delta',
]);

/**
 * Validates one SSE message at the trust boundary (SPEC.md rule 4): JSON, known event type,
 * protocol schema, the SSE `event` field matching the data's `type`, and the run it belongs to.
 *
 * @example
 * parseServerMessage({ event: 'run-status', id: '3', data: '{"type":"run-status",…}' }, 'run-1');
 */
export function parseServerMessage(message: EventSourceMessage, runId: string): ServerMessage {
  const name = message.event ?? 'message';
  if (
    name !== 'reset' &&
    name !== 'unauthorized' &&
    name !== 'run-deltas' &&
    !EVENT_TYPES.has(name)
  ) {
    return invalid('unknown-event', `Unknown SSE event type "${name}"`, 'event');
  }
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch (cause) {
    return invalid(
      'malformed-json',
      `The data of a "${name}" event is not valid JSON`,
      'data',
      cause,
    );
  }
  if (name === 'reset') {
    const reset = safeParseRunReset(data);
    if (!reset.success) {
      return invalid(
        'invalid-event',
        `Invalid "reset" order: ${reset.error.message}`,
        reset.error.issues[0]?.path,
        reset.error,
      );
    }
    if (reset.data.runId !== runId) {
      return invalid(
        'run-mismatch',
        `A reset of run ${reset.data.runId} arrived on run ${runId}`,
        'runId',
      );
    }
    return { kind: 'reset', reason: reset.data.reason };
  }
  if (name === 'unauthorized') return unauthorized(data, runId);
  if (name === 'run-deltas') return deltaBatch(data, runId, message.id);
  const parsed = safeParseServedRunEvent(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path;
    return invalid(
      'invalid-event',
      `Invalid "${name}" event: ${parsed.error.message}`,
      field,
      parsed.error,
    );
  }
  const event = parsed.data;
  if (event.type !== name) {
    return invalid(
      'invalid-event',
      `SSE event "${name}" carries data of type "${event.type}"`,
      'type',
    );
  }
  if (event.runId !== runId) {
    return invalid(
      'run-mismatch',
      `An event of run ${event.runId} arrived on run ${runId}`,
      'runId',
    );
  }
  return { kind: 'event', event, id: message.id };
}

/** `event: run-deltas`: consecutive deltas in one message (the server's wire coalescing). */
function deltaBatch(data: unknown, runId: string, id: string | undefined): ServerMessage {
  const parsed = safeParseRunDeltaBatch(data);
  if (!parsed.success) {
    return invalid(
      'invalid-event',
      `Invalid "run-deltas" event: ${parsed.error.message}`,
      parsed.error.issues[0]?.path,
      parsed.error,
    );
  }
  if (parsed.data.runId !== runId) {
    return invalid(
      'run-mismatch',
      `Deltas of run ${parsed.data.runId} arrived on run ${runId}`,
      'runId',
    );
  }
  return { kind: 'deltas', events: expandRunDeltaBatch(parsed.data), id };
}

/** `event: unauthorized`: the server re-checked access while streaming and refused it. */
function unauthorized(data: unknown, runId: string): ServerMessage {
  const end = safeParseRunUnauthorized(data);
  if (!end.success) {
    return invalid(
      'invalid-event',
      `Invalid "unauthorized" end: ${end.error.message}`,
      end.error.issues[0]?.path,
      end.error,
    );
  }
  if (end.data.runId !== runId) {
    return invalid(
      'run-mismatch',
      `An unauthorized end of run ${end.data.runId} arrived on run ${runId}`,
      'runId',
    );
  }
  const { status, code } = end.data;
  const error = new RunlightClientError(
    'unauthorized',
    `The server no longer lets this client follow run ${runId} (HTTP ${status} ${code})`,
    { status, code },
  );
  return { kind: 'unauthorized', error };
}

function invalid(
  kind: RunlightClientError['kind'],
  message: string,
  field: string | undefined,
  cause?: unknown,
): ServerMessage {
  const options = {
    ...(field === undefined ? {} : { field }),
    ...(cause === undefined ? {} : { cause }),
  };
  return { kind: 'invalid', error: new RunlightClientError(kind, message, options) };
}
