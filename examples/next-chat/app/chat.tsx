'use client';

import { useChat } from '@ai-sdk/react';
import { createRunIdMemory, createRunlightChatTransport } from '@runlight/ai-sdk';
import { createRunlightClient } from '@runlight/client';
import { RunlightProvider, RunStatus } from '@runlight/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useState } from 'react';

const CHAT_ID = 'chat-1';

function setup() {
  const client = createRunlightClient({ baseUrl: '/api' });
  const storage = typeof window === 'undefined' ? undefined : window.sessionStorage;
  const transport = createRunlightChatTransport({
    baseUrl: '/api',
    client,
    start: '/api/runs',
    runIds: createRunIdMemory(storage),
  });
  return { client, transport };
}

/** The chat: `useChat` on the Runlight transport, `RunStatus` of its run beside it. */
export function Chat() {
  const [{ client, transport }] = useState(setup);
  // After a reload, the chat's messages come from the tab (and its run's checkpoint).
  const [initial] = useState<UIMessage[]>(() => {
    if (typeof window === 'undefined') return [];
    return JSON.parse(window.sessionStorage.getItem(`messages:${CHAT_ID}`) ?? '[]') as UIMessage[];
  });
  const chat = useChat({
    id: CHAT_ID,
    transport,
    messages: initial,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  useEffect(() => {
    window.sessionStorage.setItem(`messages:${CHAT_ID}`, JSON.stringify(chat.messages));
  }, [chat.messages]);
  const runId = transport.getRunId(CHAT_ID);

  return (
    <RunlightProvider client={client}>
      <section style={{ display: 'flex', gap: '1rem', alignItems: 'center' }}>
        <strong>Run:</strong> {runId ? <RunStatus runId={runId} /> : <span>none yet</span>}
      </section>
      <ol>
        {chat.messages.map((message) => (
          <li key={message.id}>
            <strong>{message.role}:</strong>{' '}
            {message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}
          </li>
        ))}
      </ol>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === '') return;
          void chat.sendMessage({ text: input });
          setInput('');
        }}
      >
        <input
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Say something"
        />
        <button type="submit" disabled={chat.status === 'streaming' || chat.status === 'submitted'}>
          Send
        </button>
        <button type="button" onClick={() => void chat.stop()}>
          Stop
        </button>
      </form>
    </RunlightProvider>
  );
}
