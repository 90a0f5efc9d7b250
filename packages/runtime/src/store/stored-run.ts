import {
  AgentRunSchema,
  AssistantCheckpointSchema,
  type DurableRunEvent,
  TimestampSchema,
} from '@runlight/protocol';
import { z } from 'zod';

/** The lease of the current owner; renewed by every successful owned mutation. */
export const LeaseSchema = z.strictObject({
  owner: z.string().min(1),
  expiresAt: TimestampSchema,
  leaseMs: z.number().int().positive(),
});
export type Lease = z.infer<typeof LeaseSchema>;

/**
 * What a driver stores per run: the public `AgentRun`, its assistant checkpoint, and the
 * bookkeeping the reducer needs but clients do not (the lease, every operation id used so far).
 */
export const StoredRunSchema = z
  .strictObject({
    run: AgentRunSchema,
    assistant: AssistantCheckpointSchema.nullable(),
    lease: LeaseSchema.nullable(),
    operationIds: z.array(z.string()),
  })
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
