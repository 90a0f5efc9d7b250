import { useAgUiState } from '@assistant-ui/react-ag-ui';
import {
  activityOf,
  describeActivity,
  type OperationActivity,
} from '@runlight/example-ag-ui/src/describe-activity';
import { useEffect, useState } from 'react';
import type { ReconnectingRunlightAgent } from './reconnecting-agent';

/**
 * The run's `runlight.operation` activity — compaction, the provider wait, a retry — read from
 * the agent itself: assistant-ui's runtime ignores activity messages (`ACTIVITY_SNAPSHOT` /
 * `ACTIVITY_DELTA`), so they never reach its thread state.
 */
export function Status({ agent }: { agent: ReconnectingRunlightAgent }) {
  const [activity, setActivity] = useState<OperationActivity | null>(() =>
    activityOf(agent.messages),
  );
  // A clock for the retry countdown and the wait's seconds (the times are the server's).
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const subscription = agent.subscribe({
      onMessagesChanged: ({ messages }) => setActivity(activityOf(messages)),
    });
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => {
      subscription.unsubscribe();
      clearInterval(timer);
    };
  }, [agent]);
  // The run's status as AG-UI state (`STATE_SNAPSHOT` / `STATE_DELTA`), which assistant-ui keeps.
  const state = useAgUiState<{ runlight?: { runId: string; status: string } }>();
  return (
    <div
      className="status"
      role="status"
      aria-live="polite"
      data-testid="status"
      data-activity={activity?.kind ?? 'none'}
      data-attempt={String(activity?.attempt ?? 1)}
      data-run-status={state?.runlight?.status ?? 'none'}
    >
      {activity ? describeActivity(activity, now) : 'No run yet'}
    </div>
  );
}
