import type { RunSnapshot } from '@runlight/protocol';
import { type AgentRuntimeStore, RunNotFoundError } from '@runlight/runtime';
import { evolveRun } from '@runlight/runtime/driver';
// The runtime's own materialisation of the assistant message, not part of its API: the demo
// reads it from source.
import { materialiseAssistant } from '../../../packages/runtime/src/store/log/materialise-assistant';

/**
 * What a fresh client loads at revision `revision` of a run: the server's durable log folded
 * to it with the runtime's reducer (`evolveRun`), the assistant message materialised from its
 * events, in the form the demo's run handlers send (`exposeInternals: true`). `null` past the run's revision.
 * The devtools' time travel is tested against it (apps/demo/e2e/devtools.test.ts).
 *
 * @example
 * const snapshot = await snapshotAtRevision(store, runId, 12);
 */
export async function snapshotAtRevision(
  store: AgentRuntimeStore,
  runId: string,
  revision: number,
): Promise<RunSnapshot | null> {
  let events: Awaited<ReturnType<AgentRuntimeStore['readEvents']>>;
  try {
    events = await store.readEvents(runId);
  } catch (error) {
    if (RunNotFoundError.isInstance(error)) return null;
    throw error;
  }
  const upTo = events.filter((event) => event.revision <= revision);
  if (upTo.length === 0 || upTo.at(-1)!.revision !== revision) return null;
  const record = upTo.reduce(evolveRun, null)!;
  const assistant =
    record.assistant === null ? null : await materialiseAssistant(runId, record.assistant, upTo);
  return { run: record.run, assistant, revision };
}
