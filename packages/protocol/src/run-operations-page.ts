import * as z from 'zod/mini';
import { RunIdSchema } from './agent-run';
import { RunOperationEventSchema } from './run-event';

const Revision = z
  .number()
  .check(z.int('must be an integer'), z.minimum(0, 'must be zero or more'));

/**
 * One page of a run's operation history (`GET …/runs/:id/operations?after=&limit=`): the
 * durable `run-operation` events with `revision > after`, in revision order.
 *
 * - `nextAfter`: pass it as `after` for the next page; `null` when this page reached the end of
 *   the event log as it was when the server read it.
 * - `revision`: the run's revision the server read the log through. With `nextAfter: null`
 *   the page holds every operation event in `(after, revision]`; with a `nextAfter`, every one in
 *   `(after, nextAfter]`.
 */
export const RunOperationsPageSchema = z
  .strictObject({
    runId: RunIdSchema,
    operations: z.array(RunOperationEventSchema),
    nextAfter: z.nullable(Revision),
    revision: Revision,
  })
  .check(
    z.superRefine((page, context) => {
      let previous = 0;
      page.operations.forEach((event, index) => {
        if (event.runId !== page.runId) {
          context.addIssue({
            code: 'custom',
            path: ['operations', index, 'runId'],
            message: 'must be the run of the page',
          });
        }
        if (event.revision <= previous) {
          context.addIssue({
            code: 'custom',
            path: ['operations', index, 'revision'],
            message: 'must be higher than the previous operation',
          });
        }
        previous = event.revision;
      });
      if (previous > page.revision) {
        context.addIssue({
          code: 'custom',
          path: ['revision'],
          message: 'must not be lower than an operation of the page',
        });
      }
    }),
  );

export type RunOperationsPage = z.infer<typeof RunOperationsPageSchema>;
