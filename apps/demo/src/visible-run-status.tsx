import { RunStatus } from '@runlight/react';
import { useEffect, useRef, useState } from 'react';

/**
 * `RunStatus` only while its row is on screen (IntersectionObserver): a run scrolled out of view
 * unmounts its status, its store loses its last subscriber and leaves the shared connection,
 * so it stops costing a subscription. Scrolled back, it rejoins from its cursor.
 */
export function VisibleRunStatus({ runId }: { runId: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const observer = new IntersectionObserver(
      (entries) => setVisible(entries.some((entry) => entry.isIntersecting)),
      { rootMargin: '0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <span ref={ref} className="runs-list-status" data-visible={visible ? 'true' : 'false'}>
      {visible ? <RunStatus runId={runId} /> : <span data-testid="offscreen">—</span>}
    </span>
  );
}
