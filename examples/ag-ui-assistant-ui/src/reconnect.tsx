import type { AssistantRuntime } from '@assistant-ui/react';
import { useEffect, useRef } from 'react';
import type { ReconnectingRunlightAgent } from './reconnecting-agent';

/**
 * After a reload (a run id in the URL): one run of the runtime, which the agent answers with
 * `connect()` — assistant-ui's AG-UI runtime has no reconnect of its own. `parentId: null`:
 * the thread is empty; the resume stream's `MESSAGES_SNAPSHOT` fills it.
 */
export function Reconnect({
  agent,
  runtime,
}: {
  agent: ReconnectingRunlightAgent;
  runtime: AssistantRuntime;
}) {
  // Once per page, even when React runs the effect twice (StrictMode).
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !agent.runId) return;
    started.current = true;
    agent.reconnectOnNextRun();
    runtime.thread.startRun({ parentId: null });
  }, [agent, runtime]);
  return null;
}
