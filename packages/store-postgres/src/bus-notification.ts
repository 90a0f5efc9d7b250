import type { RunDeltaEvent } from '@runlight/protocol';
import type { DurablePointer as RunDeliveryPointer } from '@runlight/runtime/driver';

/** A durable event is a row of the event log already: only where to find it travels. */
export interface DurablePointer extends RunDeliveryPointer {
  kind: 'durable';
}

/** One message of a notification payload. */
export type BusMessage =
  | DurablePointer
  | { kind: 'delta'; event: RunDeltaEvent }
  | { kind: 'delta-row'; runId: string; id: string }
  /** A control request of the run was recorded: its executor reads it now. */
  | { kind: 'control'; runId: string }
  | { kind: 'skip' };

interface Envelope {
  /** The sending instance, so it ignores its own notifications. */
  instanceId: string;
  messages: BusMessage[];
}

const headOf = (instanceId: string) => `{"instanceId":${JSON.stringify(instanceId)},"messages":[`;

/** The UTF-8 size of a notification carrying `message` alone. */
export function loneNotificationBytes(instanceId: string, message: BusMessage): number {
  return Buffer.byteLength(headOf(instanceId)) + Buffer.byteLength(JSON.stringify(message)) + 2;
}

/**
 * Packs `messages`, in order, into as few NOTIFY payloads of at most `maxBytes` (UTF-8) as
 * possible. The caller has moved every message too large for a payload into a row.
 */
export function encodeNotifications(
  instanceId: string,
  messages: readonly BusMessage[],
  maxBytes: number,
): string[] {
  const head = headOf(instanceId);
  const overhead = Buffer.byteLength(head) + 2;
  const payloads: string[] = [];
  let parts: string[] = [];
  let size = overhead;
  for (const message of messages) {
    if (message.kind === 'skip') continue;
    const json = JSON.stringify(message);
    const bytes = Buffer.byteLength(json) + (parts.length > 0 ? 1 : 0); // the comma
    if (parts.length > 0 && size + bytes > maxBytes) {
      payloads.push(`${head}${parts.join(',')}]}`);
      parts = [];
      size = overhead + bytes - 1;
    } else {
      size += bytes;
    }
    parts.push(json);
  }
  if (parts.length > 0) payloads.push(`${head}${parts.join(',')}]}`);
  return payloads;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

function isMessage(value: unknown): value is BusMessage {
  if (!isObject(value)) return false;
  switch (value.kind) {
    case 'durable':
      return (
        typeof value.runId === 'string' &&
        Number.isInteger(value.revision) &&
        typeof value.type === 'string'
      );
    case 'delta':
      // The event itself is checked by the receiver (`isRunDeltaShape`).
      return isObject(value.event);
    case 'delta-row':
      return typeof value.runId === 'string' && typeof value.id === 'string';
    case 'control':
      return typeof value.runId === 'string';
    default:
      return false;
  }
}

/** Reads a payload another instance sent; anything unexpected is an error, not a crash. */
export function decodeNotification(
  payload: string,
): ({ ok: true } & Envelope) | { ok: false; error: Error } {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return { ok: false, error: new TypeError('a run event notification is not JSON') };
  }
  if (
    !isObject(value) ||
    typeof value.instanceId !== 'string' ||
    !Array.isArray(value.messages) ||
    !value.messages.every(isMessage)
  ) {
    return { ok: false, error: new TypeError('a run event notification has an unknown shape') };
  }
  return { ok: true, instanceId: value.instanceId, messages: value.messages };
}
