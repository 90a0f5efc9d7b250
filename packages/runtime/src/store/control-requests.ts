import { TimestampSchema } from '@runlight/protocol';
import { z } from 'zod';
import { StoreRecordError } from '../errors/store-record-error';
import type { AgentRuntimeDriver, StoredControlRequest } from './driver';
import { assertRunId } from './run-id-guard';
import { issuesOf } from './zod-issues';

/** A durable control request: a cancel or approval answers, recorded for the run's executor. */
export type ControlRequest = StoredControlRequest;

export const ControlRequestSchema = z.strictObject({
  runId: z.string().min(1),
  requestId: z.string().min(1).max(300),
  kind: z.enum(['cancel', 'approvals']),
  approvals: z
    .array(
      z.strictObject({
        approvalId: z.string().min(1).max(200),
        approved: z.boolean(),
        reason: z.string().max(2_000).optional(),
      }),
    )
    .min(1)
    .max(100)
    .optional(),
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
  /** `true` for the one caller that marks it done — the one that applies it. */
  claim(runId: string, requestId: string): Promise<boolean>;
  /** Called with the run id after each request this store object recorded. */
  subscribe(listener: (runId: string) => void): () => void;
}

/** The control requests of `driver`, or `undefined` when it does not store them. */
export function controlRequestsOf(
  driver: AgentRuntimeDriver,
  now: () => Date,
): ControlRequests | undefined {
  const { appendControlRequest, readControlRequests, markControlRequestDone } = driver;
  if (!appendControlRequest || !readControlRequests || !markControlRequestDone) return undefined;
  const listeners = new Set<(runId: string) => void>();
  return {
    async record(input) {
      assertRunId(input.runId);
      const request = ControlRequestSchema.parse({ ...input, createdAt: now().toISOString() });
      const recorded = await appendControlRequest.call(driver, input.runId, request);
      if (recorded) for (const listener of listeners) listener(input.runId);
      return recorded;
    },
    async pending(runIds) {
      if (runIds.length === 0) return [];
      const rows = await readControlRequests.call(driver, runIds);
      return rows.map((row) => {
        const parsed = ControlRequestSchema.safeParse(row);
        if (parsed.success) return parsed.data as ControlRequest;
        const runId = (row as { runId?: unknown } | null)?.runId;
        throw new StoreRecordError(
          typeof runId === 'string' ? runId : '(unknown)',
          'control request',
          issuesOf(parsed.error),
        );
      });
    },
    claim(runId, requestId) {
      assertRunId(runId);
      return markControlRequestDone.call(driver, runId, requestId);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
