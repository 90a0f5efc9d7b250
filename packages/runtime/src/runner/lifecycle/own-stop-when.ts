import type { StopCondition, ToolSet } from 'ai';
import type { ExecutionContext } from '../execution-context';
import type { ExecutionStop } from './execution-stop';

type StopWhen = StopCondition<ToolSet> | StopCondition<ToolSet>[] | undefined;

/**
 * The application's `stopWhen` conditions, with their errors named `internal` where they are
 * thrown: the SDK rethrows them out of its stream iterator, where the runner otherwise reads
 * an error as the provider's stream breaking.
 *
 * @example
 * streamText({ stopWhen: ownStopWhen(options.stopWhen, stop, context), ... });
 */
export function ownStopWhen(
  stopWhen: StopWhen,
  stop: ExecutionStop,
  context: ExecutionContext,
): StopWhen {
  if (stopWhen === undefined) return undefined;
  const own =
    (condition: StopCondition<ToolSet>): StopCondition<ToolSet> =>
    async (input) => {
      try {
        return await condition(input);
      } catch (error) {
        context.log('error', 'A stopWhen condition failed', error);
        stop.fail('internal');
        throw stop.own(error);
      }
    };
  return Array.isArray(stopWhen) ? stopWhen.map(own) : own(stopWhen);
}
