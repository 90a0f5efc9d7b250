import type { RunEventSource } from '../../events/event-hub';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { StreamReauthorization } from '../access/access-policy';
import type { RunCursor } from './run-cursor';
import type { SseBufferBudget } from './sse-buffer-budget';

/** What one `RunEventStream` follows, and its limits. */
export interface RunEventStreamOptions {
  runId: string;
  store: Pick<AgentRuntimeStore, 'readEvents'>;
  source: RunEventSource;
  /** Where the client stands; everything after it is sent. */
  cursor: RunCursor;
  heartbeatMs: number;
  /**
   * Write `SSE_OPENING` first, so every host sends the headers at once. Default `true`; `false`
   * for a run inside a multiplexed stream (that stream opens once for all of them).
   */
  opening?: boolean;
  /** A client whose unread output exceeds this many bytes is dropped (it resumes by cursor). */
  maxQueuedBytes: number;
  /** The unread bytes of every stream of the handlers, capped in total (see `SseBufferBudget`). */
  budget?: SseBufferBudget;
  /** A client with unread bytes that reads nothing for this long is dropped. Default: never. */
  idleTimeoutMs?: number;
  /**
   * A durable event whose SSE message is larger is sent as an `event-ref` (the client fetches
   * it); a larger live delta is not sent (sse-event-size.ts). Default: no limit.
   */
  maxEventBytes?: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** Store failures while streaming (the stream then ends and the client resumes). */
  onError: (error: unknown) => void;
  /**
   * Re-asks the access policy every `everyMs` while open: a refusal ends the stream with an
   * `unauthorized` message (`RunUnauthorized`, no id), a failing policy ends it plainly.
   */
  reauthorize?: StreamReauthorization;
  /**
   * Send `owner` and `fencingToken` as stored (tools like the playground). Default `false`: the
   * public form (public-form.ts) — a holder tag instead of the owner, no fencing token.
   */
  exposeInternals?: boolean;
  /**
   * Wire coalescing (`DeltaCoalescer`): deltas continuing a part wait up to this many ms and
   * travel as one `run-deltas` message. Only for a client that asked (`deltas=batched`).
   * Default 0: every delta is its own `run-delta` message.
   */
  coalesceDeltasMs?: number;
}
