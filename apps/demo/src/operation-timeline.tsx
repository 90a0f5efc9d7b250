import { RunTimeline } from '@runlight/react';

/**
 * The run's waterfall, from `@runlight/react`: the whole operation history (loaded from
 * `GET /api/runs/:id/operations`, then merged with live events), so a reload shows every
 * operation with its original times, not only the ones this page saw.
 */
export function OperationTimeline({ runId }: { runId: string }) {
  return <RunTimeline runId={runId} data-testid="timeline" className="run-timeline" />;
}
