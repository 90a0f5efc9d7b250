import type { DurableRunEvent, RunEventRef } from '@runlight/protocol';
import { formatSseMessage } from './format-sse-message';
import { encodeSse } from './sse-output';

/**
 * The default `maxEventBytes`: 1 MiB. Well under the default per-client cap (`maxQueuedBytes`,
 * 8 MiB), so one event can never be a message that alone gets its client dropped — which
 * made a run with one large tool result unwatchable: every watcher was dropped at it and
 * resumed at the same cursor, forever. And large enough that an ordinary event (a few hundred
 * bytes; an assistant consolidation of a long answer, tens of KiB) always travels inline.
 */
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/**
 * The `event-ref` message that stands in for durable `event` (whose own message is `size`
 * bytes) at cursor `id`: the client fetches `GET …/runs/:id/events/:revision` and applies the event in
 * its place. It carries the id the event would have had, so the client's `Last-Event-ID` moves
 * past it only once it applied the event.
 *
 * @example
 * eventRefBytes(event, '12', 12_582_912); // event: event-ref / id: 12 / data: {"type":"event-ref",…}
 */
export function eventRefBytes(event: DurableRunEvent, id: string, size: number): Uint8Array {
  const ref: RunEventRef = {
    type: 'event-ref',
    runId: event.runId,
    revision: event.revision,
    eventType: event.type,
    bytes: size,
  };
  return encodeSse(formatSseMessage('event-ref', id, JSON.stringify(ref)));
}
