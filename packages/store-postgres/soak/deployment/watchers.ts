import {
  createRunlightClient,
  type RunlightClient,
  type RunState,
  selectMessage,
} from '@runlight/client';
import type { UIMessage } from '@runlight/protocol';
import type { AgentRuntimeStore } from '@runlight/runtime';

/** The text a page shows of a message: its text parts, in order. */
export function textOf(message: UIMessage | null | undefined): string {
  return (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A browser tab on one gateway: the real client, following every run of the soak. */
export interface Watcher {
  readonly gateway: string;
  follow(runId: string): void;
  state(runId: string): RunState | undefined;
  /** Highest number of stores in `reconnecting`/`offline` at once (a figure). */
  readonly client: RunlightClient;
  close(): void;
}

export function createWatcher(gateway: string, origin: string): Watcher {
  const client = createRunlightClient({
    baseUrl: `${origin}/api`,
    // A dead gateway connection is noticed within the soak's bounds, not a browser's 45 s.
    stallTimeoutMs: 8_000,
    reconnect: { initialDelayMs: 200, maxDelayMs: 2_000 },
  });
  const unsubscribes = new Map<string, () => void>();
  return {
    gateway,
    client,
    follow(runId) {
      if (unsubscribes.has(runId)) return;
      unsubscribes.set(
        runId,
        client.run(runId).subscribe(() => {}),
      );
    },
    state: (runId) => (unsubscribes.has(runId) ? client.run(runId).getState() : undefined),
    close() {
      for (const unsubscribe of unsubscribes.values()) unsubscribe();
      unsubscribes.clear();
    },
  };
}

/**
 * Samples the committed assistant text of running runs straight from the database (not through
 * the proxy), so "no committed text lost" can be checked against every text that was durable.
 */
export function sampleCommittedText(store: AgentRuntimeStore, everyMs = 250) {
  const samples = new Map<string, string[]>();
  const active = new Set<string>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        [...active].map(async (runId) => {
          try {
            const snapshot = await store.getSnapshot(runId);
            const list = samples.get(runId) ?? [];
            list.push(textOf(snapshot.assistant?.message));
            samples.set(runId, list);
          } catch {
            // The run may not exist yet; the checks read it again at the end.
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    add: (runId: string) => active.add(runId),
    remove: (runId: string) => active.delete(runId),
    samples: (runId: string) => samples.get(runId) ?? [],
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export { selectMessage };
