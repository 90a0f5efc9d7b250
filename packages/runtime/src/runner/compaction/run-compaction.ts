import type { RunOperation } from '@runlight/protocol';
import type { ModelMessage } from 'ai';
import { type ExecutionContext, now } from '../execution-context';
import { RunStoppedError } from '../lifecycle/execution-stop';
import type { OperationRecorder } from '../lifecycle/operation-recorder';
import type { CompactFunction, CompactResult } from '../run-options';
import { parseCompactResult } from './compact-result';

/**
 * Runs the configured `compact` callback for `step` as a durable `compaction` operation
 * (ADR 0174): `started` immediately before the invocation, then `completed` (`compacted` or
 * `not_needed` — the latter claims no summary was made), `cancelled` or `failed` from that
 * invocation's result. Returns the messages that replace the step's, if it compacted; throws
 * (an error this execution owns) when the run must not go on.
 *
 * @example
 * const compacted = await runCompaction(context, recorder, options.compact, messages, step);
 * if (compacted) return { messages: compacted };
 */
export async function runCompaction(
  context: ExecutionContext,
  recorder: OperationRecorder,
  compact: CompactFunction,
  messages: ModelMessage[],
  step: number,
): Promise<ModelMessage[] | undefined> {
  const stop = context.stop;
  stop.throwIfStopped();
  const operation: RunOperation = {
    id: `compaction:step-${step}:${context.callId ?? context.executionId}`,
    kind: 'compaction',
    phase: 'started',
    step,
    startedAt: now(),
  };
  await recorder.recordOrStop(operation);
  let result: CompactResult;
  try {
    result = parseCompactResult(
      await compact({ messages, step, signal: context.controller.signal }),
    );
  } catch (error) {
    const cancelled = stop.aborted();
    await recorder.endOperation(operation.id, cancelled ? 'cancelled' : 'failed');
    if (!cancelled) {
      context.log('error', 'The compact callback failed', error);
      stop.fail('compaction_failure', operation.id);
    }
    throw stop.own(error);
  }
  if (stop.aborted()) {
    await recorder.endOperation(operation.id, 'cancelled');
    throw stop.own(new RunStoppedError('cancelled'));
  }
  await recorder.endOperation(
    operation.id,
    'completed',
    result.status === 'compacted' ? 'compacted' : 'not_needed',
  );
  stop.throwIfStopped();
  return result.status === 'compacted' ? result.messages : undefined;
}
