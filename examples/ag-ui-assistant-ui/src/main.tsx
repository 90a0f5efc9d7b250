import { AssistantRuntimeProvider } from '@assistant-ui/react';
import { useAgUiRuntime } from '@assistant-ui/react-ag-ui';
import { runInUrl } from '@runlight/example-ag-ui/src/run-in-url';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Approval } from './approval';
import { Reconnect } from './reconnect';
import { ReconnectingRunlightAgent } from './reconnecting-agent';
import { Status } from './status';
import { Thread } from './thread';

/** The run the page shows lives in the URL (`?run=`): a reload reconnects to it. */
function createAgent(): ReconnectingRunlightAgent {
  return new ReconnectingRunlightAgent({
    url: '/api/ag-ui',
    threadId: 'example-thread',
    ...runInUrl(),
  });
}

/** `@assistant-ui/react-ag-ui` 0.0.57 types `agent` with its own `@ag-ui/client` (0.0.58). */
type AssistantUiAgent = Parameters<typeof useAgUiRuntime>[0]['agent'];

function App() {
  const [agent] = useState(createAgent);
  const runtime = useAgUiRuntime({
    // The same object at run time; the types differ between @ag-ui/client 1.0 and 0.0.58 (1.0's
    // `ImagePart.source` may be a `FileSource`), so TypeScript needs the cast.
    agent: agent as unknown as AssistantUiAgent,
    onError: (error) => console.error('AG-UI run failed', error),
    // A reloaded thread mid-approval ends with a tool call without a result: by default the
    // runtime cancels it client-side before the run that answers the approval starts.
    autoCancelPendingToolCalls: false,
  });
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <Reconnect agent={agent} runtime={runtime} />
      <Status agent={agent} />
      <Thread>
        <Approval agent={agent} runtime={runtime} />
      </Thread>
    </AssistantRuntimeProvider>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
