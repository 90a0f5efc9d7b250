import { useCallback, useEffect, useState } from 'react';

const read = () => new URLSearchParams(window.location.search).get('run');

/**
 * The run id in the page URL (`?run=<id>`), so a reload reopens the same run. Setting it
 * pushes a history entry; Back and Forward switch runs.
 *
 * @example
 * const [runId, setRunId] = useRunIdParam();
 */
export function useRunIdParam(): [string | null, (runId: string) => void] {
  const [runId, setState] = useState(read);
  useEffect(() => {
    const onPop = () => setState(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const setRunId = useCallback((next: string) => {
    const url = new URL(window.location.href);
    url.searchParams.set('run', next);
    window.history.pushState(null, '', url);
    setState(next);
  }, []);
  return [runId, setRunId];
}
