import type { DriverRunEvent } from '../log/packed-event';
import type { StoredRun } from '../log/stored-run';

/**
 * A normalized driver: storage only — a per-run event log with a compare-and-set on its head,
 * and now and then a snapshot of the run record. All rules live in the reference reducer
 * above it, and every record follows from the events (`evolveRun`): the store folds the events
 * written after the latest snapshot onto it. So a write passes the one event it appends — a few
 * hundred bytes — and a whole record only every so often, however long the run grows.
 *
 * A driver may answer on a later tick (a worker, a socket, a real database); nothing above it
 * assumes otherwise. Values it returns are validated by the store before use (`unknown`).
 */
export interface AgentRuntimeDriver {
  /**
   * The run's latest snapshot record, or `null` when none is stored. A run may exist with
   * events only (no snapshot yet): the store then reads its log from the start, and a run with
   * neither does not exist.
   */
  load(runId: string): Promise<unknown>;
  /**
   * Atomically: when the run's head revision — the revision of its last event; `null`: the run
   * has no events — equals `expectedRevision`, append `events` and, when `snapshot` is not
   * null, keep it as the run's snapshot record (its `run.revision` is the last event's);
   * otherwise change nothing. Resolves `true` when written, `false` when the revision did not
   * match. The head's `leaseExpiresAt` (the last event's) is what `findExpiredRuns` indexes.
   *
   * Events arrive without their `runId` (the driver keys them by run), in the store's packed
   * form (`PackedRunEvent`: short keys, what the log's order implies left out) or, for an event
   * the packing cannot give back exactly and for logs written before it, whole
   * (`StoredRunEvent`); `readEvents` returns them as stored. A driver reads the revision, time,
   * lease expiry and status it indexes with `storedEventHead` (either form) and treats the rest
   * as opaque JSON.
   *
   * `expectedHead`, when given, is the JSON text (`JSON.stringify`) of the head event as this
   * store wrote it: the write also requires the stored head event — the one at
   * `expectedRevision` — to still be exactly that (a driver may compare a digest of it), and
   * changes nothing (`false`) when the row was changed or removed behind the store's back. The
   * store passes it when it writes on top of its own cached record, so a corrupt head is
   * never written over; comparing one row by key in the same statement costs no round trip.
   */
  compareAndSet(
    runId: string,
    expectedRevision: number | null,
    snapshot: StoredRun | null,
    events: readonly DriverRunEvent[],
    expectedHead?: string,
  ): Promise<boolean>;
  /** Stored events with `revision > afterRevision`, in revision order. */
  readEvents(runId: string, afterRevision: number): Promise<unknown[]>;
  /**
   * Runs whose lease expired at or before `now` — the head's `leaseExpiresAt <= now`; a run
   * without a lease (queued, paused, ended) never — oldest expiry first, at most `limit` of
   * them: `{ runId, leaseExpiresAt }` each. What the recovery loop polls, so it must stay cheap
   * however many runs are stored (an index on the lease expiry).
   */
  findExpiredRuns(query: { now: string; limit: number }): Promise<unknown[]>;
  /**
   * Optional: the current time of the storage's own clock (an ISO timestamp), for a storage that
   * several processes share and that has one — a database server's. The store then takes every
   * time it writes (`at`, lease expiries) and every expiry it decides (`takeOverRun`,
   * `findExpiredRuns`) from this clock instead of the process's, so a process whose wall clock
   * is wrong can neither take a live run nor lose its own. Called before every mutation: answer
   * from memory (the last reading carried forward by a monotonic clock) rather than with a round
   * trip each time. Without it the store uses the process's clock (right for one process).
   */
  now?(): Promise<string>;
  /**
   * Optional capability: durable control requests (a cancel, approval answers) sent to any
   * process for a run another may execute. Atomically stores `request` under
   * `(runId, request.requestId)` unless one is stored there already: `true` when stored,
   * `false` when the key existed (done or not) — so a request id is recorded at most once.
   */
  appendControlRequest?(runId: string, request: StoredControlRequest): Promise<boolean>;
  /** The requests of these runs not yet marked done, oldest first (`StoredControlRequest`s). */
  readControlRequests?(runIds: readonly string[]): Promise<unknown[]>;
  /**
   * Marks the request done (claimed at `claimedAt`, the store's clock); `true` for the one call
   * that changed it (the claim an executor makes before applying it, so each request is applied
   * exactly once), else `false`.
   */
  markControlRequestDone?(runId: string, requestId: string, claimedAt?: string): Promise<boolean>;
  /**
   * Optional, with the two below: the requests whose effect is not known to have happened —
   * pending ones created before `createdBefore`, and claimed ones (`markControlRequestDone`)
   * claimed before `claimedBefore` and never `markControlRequestApplied` — of runs that have not
   * ended, oldest first, at most `limit`: `{ request, claimedAt }` each (`claimedAt` null while
   * pending). With `runIds`, of those runs only; without, of runs nobody leases (queued or
   * paused: the process that would apply them is gone) — what recovery adopts.
   */
  readStaleControlRequests?(query: {
    runIds?: readonly string[];
    createdBefore: string;
    claimedBefore: string;
    limit: number;
  }): Promise<unknown[]>;
  /**
   * Claims again, at `reclaimedAt`, a request claimed at `claimedAt` (its claimer died or failed
   * before applying it): `true` for the one call that changed the claim, `false` when it was
   * claimed anew or applied meanwhile.
   */
  reclaimControlRequest?(
    runId: string,
    requestId: string,
    claimedAt: string,
    reclaimedAt: string,
  ): Promise<boolean>;
  /** Records that the claimed request took effect (or can never take one): it is never stale. */
  markControlRequestApplied?(runId: string, requestId: string): Promise<void>;
  /**
   * Optional: deletes the control requests of runs that ended before `endedBefore` (their last
   * write), at most `limit`; resolves how many. What keeps the table from growing forever.
   */
  deleteEndedControlRequests?(query: { endedBefore: string; limit: number }): Promise<number>;
  /**
   * Optional capability: the conversation a run was started with (`StoredRunInput`). Stores
   * `input` under `runId` unless one is stored there already: `true` when stored, `false` when
   * the run has one (written once, never changed).
   */
  saveRunInput?(runId: string, input: StoredRunInput): Promise<boolean>;
  /** The run's stored input, or `null` (the store validates it). */
  readRunInput?(runId: string): Promise<unknown>;
  /**
   * The runs started for `chatId`, newest first (by `createdAt`, then run id), at most `limit`:
   * `{ runId, createdAt }` each. Must stay cheap however many runs are stored (an index).
   */
  listChatRuns?(chatId: string, query: { limit: number }): Promise<unknown[]>;
}

/** A request `readStaleControlRequests` returns, as a driver stores it. */
export interface StoredStaleControlRequest {
  request: unknown;
  /** When it was claimed; null while pending. */
  claimedAt: string | null;
}

/** The conversation a run was started with, as a driver stores it. */
export interface StoredRunInput {
  runId: string;
  /** The chat (thread) the run answers, or `null` for a run of no chat. */
  chatId: string | null;
  /** The AI SDK UI messages before the run's assistant message, as the app passed them. */
  messages: unknown[];
  createdAt: string;
}

/** A durable control request as a driver stores it (the store validates what it reads). */
export interface StoredControlRequest {
  runId: string;
  requestId: string;
  kind: 'cancel' | 'approvals';
  /** The answers of an `approvals` request. */
  approvals?: { approvalId: string; approved: boolean; reason?: string }[];
  createdAt: string;
}
