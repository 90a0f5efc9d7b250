import { isAssistantEvent, type RunEvent } from '@runlight/protocol';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { type AgentRuntimeOptions, createAgentRuntime } from '../agent-runtime';
import type { RuntimeLogEntry } from '../run-options';

/** A runtime over a memory store (or `driver`) with every event and log entry captured. */
export function harness(
  options: Partial<AgentRuntimeOptions> & { driver?: AgentRuntimeDriver; runId?: string } = {},
) {
  const runId = options.runId ?? 'run-1';
  const store = options.store ?? createAgentRuntimeStore(options.driver ?? createMemoryDriver());
  const logs: RuntimeLogEntry[] = [];
  const runtime = createAgentRuntime({
    owner: 'worker-a',
    ...options,
    store,
    onLog: (entry) => logs.push(entry),
  });
  const events: RunEvent[] = [];
  runtime.subscribe(runId, (event) => events.push(event));
  const durable = () => events.filter((event) => event.type !== 'run-delta');
  const operations = () =>
    events.flatMap((event) => (event.type === 'run-operation' ? [event.operation] : []));
  /** Every assistant write: appends and consolidating checkpoints. */
  const checkpoints = () => events.filter(isAssistantEvent);
  return { runId, store, runtime, events, durable, operations, checkpoints, logs };
}

export const user = (content: string) => [{ role: 'user' as const, content }];

/** Resolves with the first event of the run that matches `predicate`. */
export function nextEvent(
  runtime: { subscribe(runId: string, listener: (event: RunEvent) => void): () => void },
  runId: string,
  predicate: (event: RunEvent) => boolean,
): Promise<RunEvent> {
  return new Promise((resolve) => {
    const unsubscribe = runtime.subscribe(runId, (event) => {
      if (predicate(event)) {
        unsubscribe();
        resolve(event);
      }
    });
  });
}

export const isPhase = (phase: string) => (event: RunEvent) =>
  event.type === 'run-operation' && event.operation.phase === phase;

/** A scripted model whose first request holds until the test opens it. */
export { gatedModel } from '../../testing/gated-model';
