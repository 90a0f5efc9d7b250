/**
 * The run the page shows lives in the URL (`?run=`): a reload reconnects to it. Spread into a
 * `RunlightAgent`'s config: `runId` when the URL names one, and `onRunId` to name it there.
 */
export function runInUrl(): { runId?: string; onRunId: (runId: string) => void } {
  const runId = new URL(location.href).searchParams.get('run') ?? undefined;
  return {
    ...(runId ? { runId } : {}),
    onRunId: (id) => {
      const url = new URL(location.href);
      url.searchParams.set('run', id);
      history.replaceState(null, '', url);
    },
  };
}
