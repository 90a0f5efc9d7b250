import * as z from 'zod/mini';
import { RUN_STATUSES, RunFailureSchema, RunIdSchema } from './agent-run';
import { AssistantCheckpointSchema } from './assistant-checkpoint';
import { RunHandOffSchema } from './run-hand-off';
import { RunOperationSchema } from './run-operation';
import { RunTraceSchema } from './run-trace';
import { TimestampSchema } from './timestamp';
import { UIMessageChunkSchema } from './ui-message';

const Revision = z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more'));

/**
 * Fields every durable event carries: the run's new revision, when it was committed and — since
 * every owned mutation renews the lease — when the owner's lease now expires (null: nobody
 * holds the run). `leaseExpiresAt` is optional only so that events stored before it existed
 * still parse; the reducer always writes it.
 */
const durable = {
  runId: RunIdSchema,
  revision: Revision,
  at: TimestampSchema,
  leaseExpiresAt: z.optional(z.nullable(TimestampSchema)),
};

/** `lastOperation` was replaced by `operation`. */
export const RunOperationEventSchema = z.strictObject({
  type: z.literal('run-operation'),
  ...durable,
  operation: RunOperationSchema,
});

/** The assistant message was checkpointed; `checkpoint.revision` equals the event revision. */
export const AssistantCheckpointEventSchema = z
  .strictObject({
    type: z.literal('assistant-checkpoint'),
    ...durable,
    checkpoint: AssistantCheckpointSchema,
  })
  .check(
    z.superRefine((event, context) => {
      if (event.checkpoint.revision !== event.revision) {
        context.addIssue({
          code: 'custom',
          path: ['checkpoint', 'revision'],
          message: 'must equal the event revision',
        });
      }
    }),
  );

/**
 * Chunks appended to the assistant message: the UI message chunks of one checkpoint batch
 * (consecutive deltas of one part coalesced), applied in order onto the message as it stood
 * after the previous assistant write at `baseRevision` (0: none — an empty message with
 * `messageId`). Appends store each piece of the answer about once; an `assistant-checkpoint`
 * (the whole message) consolidates them now and then.
 */
export const AssistantAppendEventSchema = z
  .strictObject({
    type: z.literal('assistant-append'),
    ...durable,
    messageId: z.string().check(z.minLength(1, 'must be a non-empty message id')),
    baseRevision: z
      .number()
      .check(z.int('must be an integer'), z.minimum(0, 'must be zero or more')),
    chunks: z.array(UIMessageChunkSchema).check(z.minLength(1, 'must hold at least one chunk')),
  })
  .check(
    z.superRefine((event, context) => {
      if (event.baseRevision >= event.revision) {
        context.addIssue({
          code: 'custom',
          path: ['baseRevision'],
          message: 'must be lower than the event revision',
        });
      }
    }),
  );

export const RUN_STATUS_CHANGES = [
  'created',
  'acquired',
  'lease-renewed',
  'lease-released',
  'lease-handed-off',
  'completed',
  'failed',
  'cancelled',
] as const;
export type RunStatusChange = (typeof RUN_STATUS_CHANGES)[number];

/**
 * The run was created, acquired (a lease, a new fencing token), had its lease renewed by an
 * idle owner (`lease-renewed`: nothing else changed), had its lease released by an owner that
 * paused it for tool approvals (`lease-released`: `leaseExpiresAt` null, nobody's silence to
 * detect), had its lease handed off by an owner shutting down gracefully (`lease-handed-off`:
 * `leaseExpiresAt` is the event's time — expired at once, so another runner's recovery takes
 * the run over on its next poll) or ended.
 *
 * `handOff` is the run's planned hand-off after the change, as its record holds it: set by
 * `lease-handed-off` (who handed over), completed by the acquisition that receives the run (to
 * whom), carried by every later `run-status` event until the next acquisition; absent otherwise.
 */
const runStatusShape = {
  type: z.literal('run-status'),
  ...durable,
  change: z.enum(RUN_STATUS_CHANGES),
  status: z.enum(RUN_STATUSES),
  owner: z.nullable(z.string().check(z.minLength(1))),
  failure: z.nullable(RunFailureSchema),
  /** `created` only: the run's trace, when it was created with telemetry on. */
  trace: z.optional(RunTraceSchema),
  handOff: z.optional(RunHandOffSchema),
};

export const RunStatusEventSchema = z.strictObject({
  ...runStatusShape,
  fencingToken: z.number().check(z.int(), z.minimum(0)),
});

/**
 * A `run-status` event as the HTTP handlers send it by default: no `fencingToken`, `owner` an
 * opaque holder tag (see `PublicAgentRunSchema`).
 */
export const PublicRunStatusEventSchema = z.strictObject(runStatusShape);

/**
 * A live stream delta, published individually and not stored durably. It builds on the
 * assistant write (an `assistant-checkpoint` or `assistant-append`) at `baseRevision` (0: none
 * yet) and `seq` counts the deltas since that write, from 1. `fencingToken` names the
 * acquisition of the owner that streamed it: after a takeover, a delta of the previous owner
 * (one that was paused, not dead, and publishes on) is recognisable as such and never shown.
 * Optional only so that deltas of earlier publishers still parse.
 */
export const RunDeltaEventSchema = z.strictObject({
  type: z.literal('run-delta'),
  runId: RunIdSchema,
  baseRevision: z.number().check(z.int('must be an integer'), z.minimum(0, 'must be zero or more')),
  seq: z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
  fencingToken: z.optional(
    z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
  ),
  chunk: UIMessageChunkSchema,
});

/**
 * Not a run event but an order on the SSE stream (`event: reset`): the live deltas after the
 * client's cursor are gone, so it must reload the snapshot and resume from its revision.
 * `reason` is the server's own diagnostic text (never provider text).
 */
export const RunResetSchema = z.strictObject({
  type: z.literal('reset'),
  runId: RunIdSchema,
  reason: z.string().check(z.maxLength(500, 'must be at most 500 characters')),
});

/**
 * Not a run event but the end of a stream (`event: unauthorized`): the server re-asked its access
 * policy while the stream was open and access is gone. The client stops following the run (the
 * `unauthorized` connection state) until the app retries with new credentials. `status` and
 * `code` are what the run's own routes now answer (401 `unauthorized`, 403 `forbidden`, …).
 */
export const RunUnauthorizedSchema = z.strictObject({
  type: z.literal('unauthorized'),
  runId: RunIdSchema,
  status: z.number().check(z.int('must be an integer'), z.minimum(400), z.maximum(499)),
  code: z.string().check(z.maxLength(100, 'must be at most 100 characters')),
});

/**
 * Not a run event but a pointer on the SSE stream (`event: event-ref`, with the `id` the event
 * itself would have had): durable event `revision` of the run is larger than the server's
 * `maxEventBytes`, so it is not sent inline. The client fetches it —
 * `GET {base}/runs/:id/events/:revision`, the event's JSON — and applies it in its place before
 * anything after it. `bytes` is the size of the event's JSON (informative).
 */
export const RunEventRefSchema = z.strictObject({
  type: z.literal('event-ref'),
  runId: RunIdSchema,
  revision: z.number().check(z.int(), z.minimum(1)),
  eventType: z.enum(['run-operation', 'assistant-checkpoint', 'assistant-append', 'run-status']),
  bytes: z.number().check(z.int(), z.minimum(0)),
});

export const DurableRunEventSchema = z.discriminatedUnion('type', [
  RunOperationEventSchema,
  AssistantCheckpointEventSchema,
  AssistantAppendEventSchema,
  RunStatusEventSchema,
]);

export const RunEventSchema = z.discriminatedUnion('type', [
  RunOperationEventSchema,
  AssistantCheckpointEventSchema,
  AssistantAppendEventSchema,
  RunStatusEventSchema,
  RunDeltaEventSchema,
]);

/**
 * Any event in the form the HTTP handlers send by default: public `run-status` events, deltas
 * without `fencingToken` (the server already dropped a previous owner's).
 */
export const PublicRunEventSchema = z.discriminatedUnion('type', [
  RunOperationEventSchema,
  AssistantCheckpointEventSchema,
  AssistantAppendEventSchema,
  PublicRunStatusEventSchema,
  RunDeltaEventSchema,
]);

/** What a client accepts as an event: either form (`fencingToken` may be absent). */
export const ServedRunEventSchema = z.discriminatedUnion('type', [
  RunOperationEventSchema,
  AssistantCheckpointEventSchema,
  AssistantAppendEventSchema,
  z.strictObject({
    ...runStatusShape,
    fencingToken: z.optional(z.number().check(z.int(), z.minimum(0))),
  }),
  RunDeltaEventSchema,
]);

export type RunOperationEvent = z.infer<typeof RunOperationEventSchema>;
export type AssistantCheckpointEvent = z.infer<typeof AssistantCheckpointEventSchema>;
export type AssistantAppendEvent = z.infer<typeof AssistantAppendEventSchema>;
export type RunStatusEvent = z.infer<typeof RunStatusEventSchema>;
export type PublicRunStatusEvent = z.infer<typeof PublicRunStatusEventSchema>;
export type PublicRunEvent = z.infer<typeof PublicRunEventSchema>;
export type RunDeltaEvent = z.infer<typeof RunDeltaEventSchema>;
export type DurableRunEvent = z.infer<typeof DurableRunEventSchema>;
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunReset = z.infer<typeof RunResetSchema>;
export type RunUnauthorized = z.infer<typeof RunUnauthorizedSchema>;
export type RunEventRef = z.infer<typeof RunEventRefSchema>;

export function isDurableEvent(event: RunEvent): event is DurableRunEvent {
  return event.type !== 'run-delta';
}

/** An assistant write: the event live deltas name as their `baseRevision`. */
export function isAssistantEvent(
  event: RunEvent,
): event is AssistantCheckpointEvent | AssistantAppendEvent {
  return event.type === 'assistant-checkpoint' || event.type === 'assistant-append';
}
