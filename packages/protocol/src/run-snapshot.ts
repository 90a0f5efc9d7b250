import { z } from 'zod';
import { AgentRunSchema } from './agent-run';
import { AssistantCheckpointSchema } from './assistant-checkpoint';
import { TimestampSchema } from './timestamp';

/**
 * What a client reloads: the run record, the assistant checkpoint and the revision both are
 * read at. `serverTime` (optional) is the server's wall clock when it answered, for a client's
 * clock-offset estimate.
 */
export const RunSnapshotSchema = z
  .strictObject({
    run: AgentRunSchema,
    assistant: AssistantCheckpointSchema.nullable(),
    revision: z.number().int('must be an integer').min(0, 'must be zero or more'),
    serverTime: TimestampSchema.optional(),
  })
  .superRefine((snapshot, context) => {
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
  });

export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;
