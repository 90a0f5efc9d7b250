import { ApprovalAnswersSchema, TimestampSchema } from '@runlight/protocol';
import { z } from 'zod';
import { StoreRecordError } from '../errors/store-record-error';
import { assertRunId } from './assert-run-id';
import type { AgentRuntimeDriver, StoredControlRequest } from './driver/driver';
import type { StoreClock } from './store-clock';
import { issuesOf } from './zod-issues';

/** A durable control request: a cancel or approval answers, recorded for the run's executor. */
export type ControlRequest = StoredControlRequest;

/** A request whose effect is not known to have happened: pending, or claimed by a claimer that never said it applied. */
export interface StaleControlRequest extends ControlRequest {
  /** When it was claimed; null while pending. `claim` it with this value to claim it again. */
  claimedAt: string | null;
}

export interface StaleControlRequestQuery {
  /** Of these runs; absent: of the runs nobody leases (their applier is gone). */
  runIds?: readonly string[];
  /** Pending requests recorded at least this long ago. */
  pendingForMs: number;
  /** Claimed requests claimed at least this long ago and never marked applied. */
  claimedForMs: number;
  limit: number;
}

export const ControlRequestSchema = z.strictObject({
  runId: z.string().min(1),
  requestId: z.string().min(1).max(300),
  kind: z.enum(['cancel', 'approvals']),
  // The answers as `POST …/approvals` takes them: one schema, in the protocol, for both.
  approvals: z.optional(ApprovalAnswersSchema),
  createdAt: TimestampSchema,
});

/**
 * The store's durable control requests (present when the driver has the capability). A request
 * sent to any process is `record`ed; the process executing the run reads the `pending` ones of
 * its runs (notified through `subscribe` in this process, by polling across processes) and
 * `claim`s each before applying it: only one claim of a request succeeds, so it applies once.
 */
export interface ControlRequests {
  /** `true` when recorded, `false` when a request with this id was recorded already. */
  record(request: Omit<ControlRequest, 'createdAt'>): Promise<boolean>;
  pending(runIds: readonly string[]): Promise<ControlRequest[]>;
  /**
   * `true` for the one caller that marks it done — the one that applies it. With `claimedAt`
   * (a stale claim's), claims again a request whose claimer never applied it.
   */
  claim(runId: string, requestId: string, claimedAt?: string | null): Promise<boolean>;
  /**
   * The requests whose effect is not known to have happened, of runs that have not ended,
   * oldest first — `[]` when the driver cannot tell (no `readStaleControlRequests`).
   */
  stale(query: StaleControlRequestQuery): Promise<StaleControlRequest[]>;
  /**
   * The driver records effects (`readStaleControlRequests`, `reclaimControlRequest`,
   * `markControlRequestApplied`): a claim whose claimer died is claimed again, a paused run's
   * answer is adopted by recovery when the process that paused it is gone.
   */
  readonly tracksEffects: boolean;
  /**
   * Deletes the requests of runs that ended at least `endedForMs` ago, at most `limit`;
   * resolves how many (0 when the driver cannot). The recovery loop calls it now and then.
   */
  sweep(query: { endedForMs: number; limit: number }): Promise<number>;
  /** The claimed request took effect, or never can (refused): it is not stale again. */
  applied(runId: string, requestId: string): Promise<void>;
  /** Called with the run id after each request this store object recorded. */
  subscribe(listener: (runId: string) => void): () => void;
}

/** The control requests of `driver`, or `undefined` when it does not store them. */
export function controlRequestsOf(
  driver: AgentRuntimeDriver,
  now: StoreClock,
): ControlRequests | undefined {
  const { appendControlRequest, readControlRequests, markControlRequestDone } = driver;
  const { readStaleControlRequests, reclaimControlRequest, markControlRequestApplied } = driver;
  if (!appendControlRequest || !readControlRequests || !markControlRequestDone) return undefined;
  const listeners = new Set<(runId: string) => void>();
  const tracksEffects = Boolean(
    readStaleControlRequests && reclaimControlRequest && markControlRequestApplied,
  );
  return {
    tracksEffects,
    async record(input) {
      assertRunId(input.runId);
      const request = ControlRequestSchema.parse({
        ...input,
        createdAt: (await now()).toISOString(),
      });
      const recorded = await appendControlRequest.call(driver, input.runId, request);
      if (recorded) for (const listener of listeners) listener(input.runId);
      return recorded;
    },
    async pending(runIds) {
      if (runIds.length === 0) return [];
      const rows = await readControlRequests.call(driver, runIds);
      return rows.map(parseRequest);
    },
    async claim(runId, requestId, claimedAt) {
      assertRunId(runId);
      const at = (await now()).toISOString();
      if (claimedAt === undefined || claimedAt === null) {
        return markControlRequestDone.call(driver, runId, requestId, at);
      }
      if (!reclaimControlRequest) return false;
      return reclaimControlRequest.call(driver, runId, requestId, claimedAt, at);
    },
    async stale({ runIds, pendingForMs, claimedForMs, limit }) {
      if (!readStaleControlRequests || !tracksEffects || runIds?.length === 0) return [];
      const at = (await now()).getTime();
      const rows = await readStaleControlRequests.call(driver, {
        ...(runIds === undefined ? {} : { runIds }),
        createdBefore: new Date(at - pendingForMs).toISOString(),
        claimedBefore: new Date(at - claimedForMs).toISOString(),
        limit,
      });
      return rows.map((row) => {
        const { request, claimedAt } = (row ?? {}) as { request?: unknown; claimedAt?: unknown };
        const parsed = parseRequest(request);
        if (
          claimedAt !== null &&
          (typeof claimedAt !== 'string' || Number.isNaN(Date.parse(claimedAt)))
        ) {
          const issue = { path: 'claimedAt', message: 'is not a timestamp' };
          throw new StoreRecordError(parsed.runId, 'control request', [issue]);
        }
        return { ...parsed, claimedAt };
      });
    },
    async sweep({ endedForMs, limit }) {
      if (!driver.deleteEndedControlRequests) return 0;
      const endedBefore = new Date((await now()).getTime() - endedForMs).toISOString();
      return driver.deleteEndedControlRequests({ endedBefore, limit });
    },
    async applied(runId, requestId) {
      assertRunId(runId);
      await markControlRequestApplied?.call(driver, runId, requestId);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function parseRequest(row: unknown): ControlRequest {
  const parsed = ControlRequestSchema.safeParse(row);
  if (parsed.success) return parsed.data as ControlRequest;
  const runId = (row as { runId?: unknown } | null)?.runId;
  throw new StoreRecordError(
    typeof runId === 'string' ? runId : '(unknown)',
    'control request',
    issuesOf(parsed.error),
  );
}
