// (c) A useChat page on the AI SDK's own transport, with TanStack Query beside it.
import { useChat } from '@ai-sdk/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { DefaultChatTransport } from 'ai';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const transport = new DefaultChatTransport({ api: '/api/chat' });

function Chat() {
  const chat = useChat({ id: 'chat-1', transport });
  return (
    <button type="button" onClick={() => chat.sendMessage({ text: 'Hello' })}>
      {chat.status} {chat.messages.length}
    </button>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <Chat />
    </QueryClientProvider>
  </StrictMode>,
);
