/**
 * TEMPORARY local bindings until `@runlight/react` lands: the same names, on
 * `@runlight/client` directly. Replaced by re-exports from `@runlight/react`.
 */
import {
  type Activity,
  type ConnectionState,
  type RunlightClient,
  type RunState,
  selectActivity,
  selectElapsedMs,
} from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import {
  createContext,
  type ReactNode,
  useContext,
  useEffect,
  useState,
  useSyncExternalStore,
} from 'react';

const Context = createContext<RunlightClient | null>(null);

export function RunlightProvider({
  client,
  children,
}: {
  client: RunlightClient;
  children?: ReactNode;
}) {
  return <Context.Provider value={client}>{children}</Context.Provider>;
}

function useClient(): RunlightClient {
  const client = useContext(Context);
  if (client === null) throw new Error('no RunlightProvider');
  return client;
}

export function useRun<T>(runId: string, options: { select: (state: RunState) => T }): T {
  const store = useClient().run(runId);
  return useSyncExternalStore(store.subscribe, () => options.select(store.getState()));
}

export function useRunActivity(runId: string): Activity {
  return useRun(runId, { select: selectActivity });
}

export function useRunOperation(runId: string): RunOperation | null {
  return useRun(runId, { select: (state) => state.run?.lastOperation ?? null });
}

export function useRunConnection(runId: string): { state: ConnectionState } {
  const state = useRun(runId, { select: (s) => s.connection });
  return { state };
}

export function useElapsed(
  since: string | null | undefined,
  options: { runId?: string } = {},
): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  if (since == null) return null;
  return selectElapsedMs(since, { clockOffsetMs: null }, now) + (options.runId ? 0 : 0);
}

export function formatElapsed(ms: number): string {
  return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
}

const LABELS: Record<Activity['kind'], string> = {
  loading: 'Loading…',
  queued: 'Queued',
  compacting: 'Compacting the context',
  'waiting-for-model': 'Waiting for the model',
  streaming: 'Writing the answer',
  'awaiting-approval': 'Waiting for your approval',
  working: 'Working',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function RunStatus({ runId }: { runId: string }) {
  const activity = useRunActivity(runId);
  const elapsed = useElapsed(activity.since, { runId });
  return (
    <div role="status" aria-live="polite">
      {LABELS[activity.kind]}
      {activity.failure ? ` — ${activity.failure.code}` : ''}
      {elapsed === null ? '' : ` · ${formatElapsed(elapsed)}`}
    </div>
  );
}
