import { type BaseEvent, EventType, type Message } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { createRunlightClient, cursorOf, selectLeaseExpiry } from '@runlight/client';
import { type RunView, runViewOf } from '../mapping/run-view';
import { activityMessageOf, snapshotMessagesOf } from '../mapping/snapshot-messages';
import { closingEvents, endEventOf, eventsBetween, reopeningEvents } from '../mapping/view-events';

/** What one AG-UI stream of a run needs. */
export interface StreamRunOptions {
  runId: string;
  threadId: string;
  /**
   * `start`: the client holds its own input and nothing of the run yet — the run's output follows
   * from the start. `snapshot` (resume, and the continuation after an interrupt): the stream
   * opens with `MESSAGES_SNAPSHOT` (`input` + the run so far), then goes live.
   */
  mode: 'start' | 'snapshot';
  /** The conversation the run started with (for `snapshot`). */
  input: readonly Message[];
  /** Approvals answered durably that the run's executor may not have applied yet. */
  answered: ReadonlySet<string>;
  /** A `fetch` answering the run routes in process (the adapter's own run router). */
  fetch: typeof globalThis.fetch;
  baseUrl: string;
  /** Ends the stream (the client went away). */
  signal: AbortSignal;
  heartbeatMs: number;
  /** Asked every `reauthorizeMs`: a `Response` or `false` ends the stream with `RUN_ERROR`. */
  reauthorize?: { everyMs: number; ask: () => Promise<{ status: number; code: string } | null> };
  onError: (error: unknown) => void;
}

const encoder = new EventEncoder();
const bytes = new TextEncoder();

/**
 * One AG-UI event stream of a run, as SSE: follows the run through `@runlight/client`'s
 * `RunStore` (the snapshot, the durable events and live deltas from the run's cursor, resets,
 * event references — the same merge every Runlight UI uses) over the adapter's in-process run
 * routes, projects each merged state (`runViewOf`) and sends what changed since the last state it
 * sent (`eventsBetween`). Every message's SSE `id` is the run's cursor after it. Ends after the
 * run's end or an interrupt (`endEventOf`), or when the client goes away.
 *
 * ```
 *   RUN_STARTED ─► [MESSAGES_SNAPSHOT] ─► STATE_SNAPSHOT ─► ACTIVITY_SNAPSHOT ─► [re-open in-flight]
 *     ─► live: text / reasoning / tool / step events, ACTIVITY_DELTA …
 *     ─► close what is open ─► RUN_FINISHED (success | cancelled | interrupt) | RUN_ERROR
 * ```
 */
export function streamRun(options: StreamRunOptions): ReadableStream<Uint8Array> {
  const client = createRunlightClient({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    // The route checked that the run exists before streaming.
    notFoundRetryMs: 0,
  });
  const store = client.run(options.runId);
  let sent: RunView | null = null;
  let done = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let unsubscribe = () => {};

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (events: readonly BaseEvent[], cursor: string | null) => {
        if (events.length === 0) return;
        const id = cursor === null ? '' : `id: ${cursor}\n`;
        const text = events.map((event) => `${id}${encoder.encodeSSE(event)}`).join('');
        controller.enqueue(bytes.encode(text));
      };
      const finish = () => {
        if (done) return;
        done = true;
        unsubscribe();
        for (const timer of timers) clearTimeout(timer);
        options.signal.removeEventListener('abort', finish);
        try {
          controller.close();
        } catch {
          // Already closed or cancelled by the reader.
        }
      };
      const later = (ms: number, work: () => void) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!done) work();
        }, ms);
        timers.add(timer);
      };

      const update = () => {
        if (done) return;
        const state = store.getState();
        const view = runViewOf(state, { now: Date.now(), answered: options.answered });
        if (view === null) return;
        const cursor = cursorOf(state);
        const events: BaseEvent[] = [];
        if (sent === null) {
          events.push({
            type: EventType.RUN_STARTED,
            threadId: options.threadId,
            runId: view.runId,
          });
          if (options.mode === 'snapshot') {
            events.push({
              type: EventType.MESSAGES_SNAPSHOT,
              messages: snapshotMessagesOf(options.input, view),
            });
          }
          events.push({ type: EventType.STATE_SNAPSHOT, snapshot: stateOf(view) });
          const activity = activityMessageOf(view);
          events.push({
            type: EventType.ACTIVITY_SNAPSHOT,
            messageId: activity.id,
            activityType: activity.activityType,
            content: activity.content,
          });
          if (options.mode === 'snapshot') {
            events.push(...reopeningEvents(view));
          } else {
            events.push(...eventsBetween({ ...view, parts: [] }, view));
          }
        } else if (diverged(sent, view)) {
          // The durable truth no longer extends what the client was shown (a takeover dropped
          // a dead owner's live deltas; a reset reloaded an older snapshot): show the truth.
          events.push(
            {
              type: EventType.MESSAGES_SNAPSHOT,
              messages: snapshotMessagesOf(options.input, view),
            },
            ...reopenedSince(sent, view),
          );
        } else {
          events.push(...eventsBetween(sent, view));
        }
        if (sent !== null && sent.status !== view.status) {
          events.push({
            type: EventType.STATE_DELTA,
            delta: [{ op: 'replace', path: '/runlight/status', value: view.status }],
          });
        }
        sent = view;
        const end = endEventOf(sent, options.threadId);
        if (end !== null) {
          write([...events, ...closingEvents(sent), end], cursor);
          finish();
          return;
        }
        write(events, cursor);
        // Nothing arrives when a worker goes silent: look again when its lease expires.
        const expiry = selectLeaseExpiry(state);
        if (expiry !== null) later(Math.max(0, expiry - Date.now()) + 10, update);
      };

      const heartbeat = () => {
        controller.enqueue(bytes.encode(': ping\n\n'));
        later(options.heartbeatMs, heartbeat);
      };
      later(options.heartbeatMs, heartbeat);
      const reauthorize = options.reauthorize;
      if (reauthorize && reauthorize.everyMs > 0) {
        const check = () => {
          reauthorize.ask().then(
            (refusal) => {
              if (done) return;
              if (refusal === null) return later(reauthorize.everyMs, check);
              write(
                [
                  {
                    type: EventType.RUN_ERROR,
                    message: 'Access to the run ended',
                    code: refusal.code,
                  },
                ],
                null,
              );
              finish();
            },
            (error: unknown) => {
              options.onError(error);
              finish();
            },
          );
        };
        later(reauthorize.everyMs, check);
      }
      options.signal.addEventListener('abort', finish);
      if (options.signal.aborted) return finish();
      unsubscribe = store.subscribe(() => {
        try {
          update();
        } catch (error) {
          options.onError(error);
          finish();
        }
      });
      update();
    },
    cancel() {
      done = true;
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
    },
  });
}

/** The AG-UI state of a run's thread: what the run is, by its durable status. */
function stateOf(view: RunView) {
  return { runlight: { runId: view.runId, status: view.status } };
}

/** What keeps a stream open in the verifier's eyes: its open step, messages and tool calls. */
function keyOf(event: BaseEvent): string {
  return `${event.stepName ?? event.messageId ?? event.toolCallId}`;
}

/**
 * After a `MESSAGES_SNAPSHOT` of `after` replaced what `before` showed: closes what was open and
 * no longer is, opens what is in flight now and was not (each by its id; a step by its name).
 */
function reopenedSince(before: RunView, after: RunView): BaseEvent[] {
  const opened = reopeningEvents(after);
  const wasOpen = reopeningEvents(before);
  const stillOpen = new Set(opened.map(keyOf));
  const already = new Set(wasOpen.map(keyOf));
  return [
    ...closingEvents(before).filter((event) => !stillOpen.has(keyOf(event))),
    ...opened.filter((event) => !already.has(keyOf(event))),
  ];
}

/**
 * True when `after` does not extend `before`: a part is gone, a text no longer starts with the
 * text already sent, or a part changed its kind. Growing text, new parts, arguments and results
 * extend a view; anything else needs a `MESSAGES_SNAPSHOT`.
 */
function diverged(before: RunView, after: RunView): boolean {
  if (after.parts.length < before.parts.length) return true;
  return before.parts.some((part, index) => {
    const next = after.parts[index]!;
    if (next.kind !== part.kind) return true;
    if ((part.kind === 'text' || part.kind === 'reasoning') && 'text' in next) {
      return !next.text.startsWith(part.text);
    }
    if (part.kind === 'tool' && next.kind === 'tool') {
      return (
        (part.args !== null && next.args !== part.args) ||
        (part.result !== null && next.result !== part.result)
      );
    }
    return false;
  });
}
