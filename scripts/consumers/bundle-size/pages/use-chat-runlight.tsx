// (d) The same useChat page on durable runs: Runlight's transport and a RunStatus beside it.
import { useChat } from '@ai-sdk/react';
import { createRunlightChatTransport } from '@runlight/ai-sdk';
import { RunlightProvider, RunStatus } from '@runlight/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const transport = createRunlightChatTransport({ baseUrl: '/api', start: '/api/chat' });

function Chat() {
  const chat = useChat({ id: 'chat-1', transport, resume: true });
  const runId = transport.getRunId('chat-1');
  return (
    <>
      {runId && <RunStatus runId={runId} />}
      <button type="button" onClick={() => chat.sendMessage({ text: 'Hello' })}>
        {chat.status} {chat.messages.length}
      </button>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <RunlightProvider baseUrl="/api">
        <Chat />
      </RunlightProvider>
    </QueryClientProvider>
  </StrictMode>,
);
