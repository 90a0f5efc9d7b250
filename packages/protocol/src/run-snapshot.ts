import * as z from 'zod/mini';
import { AgentRunSchema, PublicAgentRunSchema, ServedAgentRunSchema } from './agent-run';
import { AssistantCheckpointSchema } from './assistant-checkpoint';
import { TimestampSchema } from './timestamp';

function checkRevisions(
  snapshot: {
    run: { revision: number };
    assistant: { revision: number } | null;
    revision: number;
  },
  context: z.core.$RefinementCtx,
): void {
  if (snapshot.revision !== snapshot.run.revision) {
    context.addIssue({
      code: 'custom',
      path: ['revision'],
      message: 'must equal run.revision',
    });
  }
  if (snapshot.assistant !== null && snapshot.assistant.revision > snapshot.revision) {
    context.addIssue({
      code: 'custom',
      path: ['assistant', 'revision'],
      message: 'must not be newer than the snapshot revision',
    });
  }
}

const snapshotShape = {
  assistant: z.nullable(AssistantCheckpointSchema),
  revision: z.number().check(z.int('must be an integer'), z.minimum(0, 'must be zero or more')),
  serverTime: z.optional(TimestampSchema),
};

/**
 * What a client reloads: the run record, the assistant checkpoint and the revision both are
 * read at. `serverTime` (optional) is the server's wall clock when it answered, for a client's
 * clock-offset estimate.
 */
export const RunSnapshotSchema = z
  .strictObject({ run: AgentRunSchema, ...snapshotShape })
  .check(z.superRefine(checkRevisions));

/** A snapshot as the HTTP handlers send it by default: its run in the public form. */
export const PublicRunSnapshotSchema = z
  .strictObject({ run: PublicAgentRunSchema, ...snapshotShape })
  .check(z.superRefine(checkRevisions));

export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;
export type PublicRunSnapshot = z.infer<typeof PublicRunSnapshotSchema>;

/** What a client accepts as a snapshot: either form (see `ServedAgentRunSchema`). */
export const ServedRunSnapshotSchema = z
  .strictObject({ run: ServedAgentRunSchema, ...snapshotShape })
  .check(z.superRefine(checkRevisions));
