import type { AgentRun, UIMessage } from '@runlight/protocol';
import { FencingError } from '../errors/fencing-error';
import { InvalidTransitionError } from '../errors/invalid-transition-error';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import type { RunTelemetry } from '../telemetry/run-telemetry';
import type { RuntimeLogEntry, StartRunOptions } from './run-options';

export interface PrepareStartDeps {
  /** The store the runtime writes through (publishing, retrying). */
  publishing: Pick<AgentRuntimeStore, 'createRun' | 'acquireRun'>;
  /** The application's store, for its optional capabilities (`runInputs`). */
  store: Pick<AgentRuntimeStore, 'runInputs'>;
  owner: string;
  leaseMs: number;
  log: (entry: RuntimeLogEntry) => void;
  /** Gives a new run its trace context, when telemetry is on. */
  telemetry?: Pick<Required<RunTelemetry>, 'traceForNewRun'> | undefined;
}

/**
 * `startRun`'s preparation, before the start is admitted (`created`): creates the run and
 * stores its conversation. `null` for a new run; one that existed is acquired here first:
 *
 * - a queued run, a run whose owner's lease expired (a takeover) or one this owner name holds
 *   is acquired (the acquisition is returned);
 * - one that ended rejects `run-ended`; one another owner's live lease holds rejects
 *   `run-exists` (the HTTP start route answers `409 run_ended` / `409 run_executing`) — so a
 *   start route never answers `201` for a run it did not start.
 *
 * @example
 * const acquired = await prepareStart(deps, runId, conversation);
 */
export async function prepareStart(
  deps: PrepareStartDeps,
  runId: string,
  conversation: StartRunOptions['conversation'],
): Promise<AgentRun | null> {
  try {
    const trace = deps.telemetry?.traceForNewRun(runId);
    await deps.publishing.createRun(trace ? { runId, trace } : { runId });
  } catch (error) {
    if (!(InvalidTransitionError.isInstance(error) && error.rule === 'run-exists')) throw error;
    return acquireExisting(deps, runId);
  }
  if (conversation) await saveInput(deps, runId, conversation);
  return null;
}

async function acquireExisting(deps: PrepareStartDeps, runId: string): Promise<AgentRun> {
  try {
    return await deps.publishing.acquireRun(runId, { owner: deps.owner, leaseMs: deps.leaseMs });
  } catch (error) {
    if (FencingError.isInstance(error) && error.reason === 'lease-held') {
      throw new InvalidTransitionError(runId, 'run-exists', 'a run with this id is running');
    }
    throw error;
  }
}

/** Stores a new run's conversation, when the store keeps run inputs. */
async function saveInput(
  deps: PrepareStartDeps,
  runId: string,
  conversation: { chatId?: string; messages: UIMessage[] },
): Promise<void> {
  const inputs = deps.store.runInputs;
  if (!inputs) {
    const message = 'The store keeps no run inputs: the conversation is not stored';
    deps.log({ level: 'warn', message, runId });
    return;
  }
  const { chatId, messages } = conversation;
  await inputs.save({ runId, chatId: chatId ?? null, messages });
}
