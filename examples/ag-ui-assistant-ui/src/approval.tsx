import type { AssistantRuntime } from '@assistant-ui/react';
import {
  type AgUiResumeEntry,
  useAgUiInterrupts,
  useAgUiSubmitInterruptResponses,
} from '@assistant-ui/react-ag-ui';
import { useEffect, useState } from 'react';
import type { ReconnectingRunlightAgent } from './reconnecting-agent';

/**
 * The approval the run waits for, as an AG-UI interrupt.
 *
 * When the run reaches it live, assistant-ui projects the interrupt (`useAgUiInterrupts`) and
 * answers it itself. After a reload it does not: the resume stream is a `MESSAGES_SNAPSHOT`,
 * then `RUN_FINISHED` with the interrupt, and assistant-ui has no in-progress message to attach
 * it to (the snapshot's last message is a finished assistant message), so it drops it. The page
 * then shows the agent's own `pendingInterrupts` and answers them with a run of the runtime whose
 * input carries `resume` (`ReconnectingRunlightAgent.resumeOnNextRun`). Either way there is one
 * approval on the page.
 */
export function Approval({
  agent,
  runtime,
}: {
  agent: ReconnectingRunlightAgent;
  runtime: AssistantRuntime;
}) {
  const projected = useAgUiInterrupts();
  const submit = useAgUiSubmitInterruptResponses();
  const [pending, setPending] = useState(() => [...agent.pendingInterrupts]);
  useEffect(() => {
    const subscription = agent.subscribe({
      // `pendingInterrupts` is set as the run finalizes, after the subscribers are called.
      onRunFinalized: () => queueMicrotask(() => setPending([...agent.pendingInterrupts])),
      onRunStartedEvent: () => setPending([]),
    });
    return () => subscription.unsubscribe();
  }, [agent]);

  const fromUi = projected.length > 0;
  const interrupts = fromUi ? projected : pending;
  if (interrupts.length === 0) return null;

  const answer = (responses: AgUiResumeEntry[]) => {
    if (fromUi) {
      void submit(responses);
      return;
    }
    setPending([]);
    agent.resumeOnNextRun(responses);
    const last = runtime.thread.getState().messages.at(-1);
    runtime.thread.startRun({ parentId: last?.id ?? null });
  };

  return (
    <div
      className="approval"
      data-testid="approval"
      data-source={fromUi ? 'useAgUiInterrupts' : 'agent.pendingInterrupts'}
    >
      {interrupts.map((interrupt) => (
        <div key={interrupt.id}>
          <p>
            {interrupt.message ?? 'Approve this tool call?'}{' '}
            <small>
              ({interrupt.reason}, {interrupt.toolCallId})
            </small>
          </p>
          {[true, false].map((approved) => (
            <button
              key={String(approved)}
              type="button"
              data-testid={approved ? 'approve' : 'deny'}
              onClick={() =>
                answer([{ interruptId: interrupt.id, status: 'resolved', payload: { approved } }])
              }
            >
              {approved ? 'Approve' : 'Deny'}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}
