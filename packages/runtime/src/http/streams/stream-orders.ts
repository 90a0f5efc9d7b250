import type { RunReset, RunUnauthorized } from '@runlight/protocol';
import { formatSseMessage } from './format-sse-message';
import { encodeSse } from './sse-output';

/**
 * `event: reset` (`RunReset`): the client reloads the snapshot. No id: the client's
 * Last-Event-ID stays what it really holds.
 */
export function resetMessage(runId: string, reason: string): Uint8Array {
  const event: RunReset = { type: 'reset', runId, reason };
  return encodeSse(formatSseMessage('reset', null, JSON.stringify(event)));
}

/** `event: unauthorized` (`RunUnauthorized`, no id): access is gone, the stream ends. */
export function unauthorizedMessage(runId: string, status: number, code: string): Uint8Array {
  const event: RunUnauthorized = { type: 'unauthorized', runId, status, code };
  return encodeSse(formatSseMessage('unauthorized', null, JSON.stringify(event)));
}
