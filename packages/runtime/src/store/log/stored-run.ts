import { AgentRunSchema, type DurableRunEvent, TimestampSchema } from '@runlight/protocol';
import { z } from 'zod';

/** The lease of the current owner; renewed by every successful owned mutation. */
export const LeaseSchema = z.strictObject({
  owner: z.string().min(1),
  expiresAt: TimestampSchema,
  leaseMs: z.number().int().positive(),
  /**
   * Set by a graceful hand-off (`lease-handed-off`): the owner shut down, it did not crash, so
   * the takeover that follows is not counted in `takeovers` (no poison run).
   */
  handedOff: z.literal(true).optional(),
});
export type Lease = z.infer<typeof LeaseSchema>;

/**
 * Keeps operation ids unique without an ever-growing list. Steps only move forward within a
 * run (a resume continues the count), so an id can only collide with an id of the same step:
 * the cursor holds the highest step seen and the ids used at that step — a handful (one per
 * attempt, plus a compaction), however long the run.
 */
export const OperationCursorSchema = z.strictObject({
  step: z.number().int().min(0),
  ids: z.array(z.string()),
});
export type OperationCursor = z.infer<typeof OperationCursorSchema>;

/**
 * Where the run's assistant message stands — a pointer, never the message, so the record a
 * compare-and-set writes stays small however long the answer grows. `revision` is the last
 * assistant write (an `assistant-checkpoint` or `assistant-append` event; the `baseRevision` of
 * the live deltas after it); `consolidatedRevision` the last `assistant-checkpoint`, whose
 * event holds the whole message (0: none — the appends build on an empty message). The message
 * is materialised on read from that checkpoint plus the appends after it, up to `revision`.
 */
export const AssistantPointerSchema = z
  .strictObject({
    messageId: z.string().min(1),
    revision: z.number().int().min(1),
    consolidatedRevision: z.number().int().min(0),
  })
  .refine((pointer) => pointer.consolidatedRevision <= pointer.revision, {
    path: ['consolidatedRevision'],
    message: 'must not be newer than revision',
  });
export type AssistantPointer = z.infer<typeof AssistantPointerSchema>;

/** A legacy `assistant: { message, revision }` checkpoint: its event holds the same message. */
function upgradeLegacyAssistant(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('message' in value)) return value;
  const { message, revision } = value as { message?: { id?: unknown }; revision?: unknown };
  return { messageId: message?.id, revision, consolidatedRevision: revision };
}

/**
 * A record stored before the cursor, the lease field, the assistant pointer and the takeover
 * count existed,
 * upgraded on read.
 */
function upgradeLegacyRecord(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const upgraded: Record<string, unknown> = { ...record };
  if (Array.isArray(record.operationIds) && !('operations' in record)) {
    const ids = record.operationIds.filter((id): id is string => typeof id === 'string');
    const run = record.run as { lastOperation?: { step?: number } | null } | undefined;
    const step = run?.lastOperation?.step ?? 0;
    upgraded.operations = {
      step,
      ids: ids.filter((id) => new RegExp(`(^|[^0-9A-Za-z])step-${step}($|[^0-9A-Za-z])`).test(id)),
    };
    delete upgraded.operationIds;
  }
  if ('assistant' in record) upgraded.assistant = upgradeLegacyAssistant(record.assistant);
  if (!('takeovers' in record)) upgraded.takeovers = 0;
  const run = record.run;
  if (typeof run === 'object' && run !== null && !('leaseExpiresAt' in run)) {
    const lease = record.lease as { expiresAt?: unknown } | null | undefined;
    upgraded.run = { ...run, leaseExpiresAt: lease?.expiresAt ?? null };
  }
  return upgraded;
}

/**
 * What a driver stores per run: the public `AgentRun`, the pointer to its assistant message,
 * and the bookkeeping the reducer needs but clients do not (the lease, the operation-id
 * cursor, the takeover count). Records written by earlier versions (an `operationIds` list, no
 * `run.leaseExpiresAt`, a whole assistant checkpoint inside, no `takeovers`) are upgraded when
 * parsed.
 */
export const StoredRunSchema = z
  .preprocess(
    upgradeLegacyRecord,
    z.strictObject({
      run: AgentRunSchema,
      assistant: AssistantPointerSchema.nullable(),
      lease: LeaseSchema.nullable(),
      operations: OperationCursorSchema,
      /**
       * How many times the run was acquired from an owner whose lease had expired (a crashed or
       * silent worker) — not after a graceful hand-off. The recovery loop ends a run taken over
       * more than its `maxAttempts` (a poison run) instead of resuming it again. Records stored
       * before it existed: 0.
       */
      takeovers: z.number().int().min(0),
    }),
  )
  .refine(
    (record) => record.assistant === null || record.assistant.revision <= record.run.revision,
    {
      path: ['assistant', 'revision'],
      message: 'must not be newer than run.revision',
    },
  );
export type StoredRun = z.infer<typeof StoredRunSchema>;

/** The result of one reducer step: the next record and the one durable event it publishes. */
export interface Mutation {
  record: StoredRun;
  event: DurableRunEvent;
}
