import * as z from 'zod/mini';
import { RunIdSchema } from './agent-run';
import type { RunDeltaEvent } from './run-event';
import { UIMessageChunkSchema } from './ui-message';

/** The most deltas one `run-deltas` message carries. */
export const MAX_RUN_DELTA_BATCH = 1_000;

/**
 * Consecutive live deltas of one run in one SSE message (`event: run-deltas`): the deltas
 * `seq`, `seq + 1`, … on the assistant write `baseRevision`, one per chunk, in order — exactly
 * the `run-delta` events they stand for (`expandRunDeltaBatch`), which a client applies one by
 * one. A server sends it only to a client that asked for it (`Accept: text/event-stream;
 * deltas=batched`) and only when it coalesces (`coalesceDeltasMs`); the message's `id` is the
 * cursor after its last delta.
 */
export const RunDeltaBatchSchema = z.strictObject({
  type: z.literal('run-deltas'),
  runId: RunIdSchema,
  baseRevision: z.number().check(z.int('must be an integer'), z.minimum(0, 'must be zero or more')),
  seq: z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
  fencingToken: z.optional(
    z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
  ),
  chunks: z
    .array(UIMessageChunkSchema)
    .check(
      z.minLength(1, 'must hold a delta'),
      z.maxLength(MAX_RUN_DELTA_BATCH, `must hold at most ${MAX_RUN_DELTA_BATCH} deltas`),
    ),
});

export type RunDeltaBatch = z.infer<typeof RunDeltaBatchSchema>;

/** The `run-delta` events a batch stands for, in order. */
export function expandRunDeltaBatch(batch: RunDeltaBatch): RunDeltaEvent[] {
  const { runId, baseRevision, seq, fencingToken } = batch;
  return batch.chunks.map((chunk, index) => ({
    type: 'run-delta',
    runId,
    baseRevision,
    seq: seq + index,
    ...(fencingToken === undefined ? {} : { fencingToken }),
    chunk,
  }));
}
