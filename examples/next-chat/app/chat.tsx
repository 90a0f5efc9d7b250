'use client';

import { useChat } from '@ai-sdk/react';
import { createRunIdMemory, createRunlightChatTransport } from '@runlight/ai-sdk';
import { createRunlightClient } from '@runlight/client';
import { RunlightProvider, RunStatus, RunTimeline } from '@runlight/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { MessageParts } from './message-parts';

const CHAT_ID = 'chat-1';
const MESSAGES_KEY = `messages:${CHAT_ID}`;

const subscribeNever = () => () => {};

/**
 * `false` while the server renders and while the browser hydrates that HTML, `true` from then on.
 * Whatever lives in `sessionStorage` (the chat's messages, its run id) is read only once this is
 * `true`, so the server's HTML and the browser's first render are the same (no hydration error).
 */
function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
}

/** The chat: rendered once the browser took over the server's HTML. */
export function Chat() {
  const hydrated = useHydrated();
  if (!hydrated) {
    return (
      <div className="chat" data-chat="loading">
        <p className="chat-empty">Loading the chat…</p>
      </div>
    );
  }
  return <BrowserChat />;
}

function setup() {
  const client = createRunlightClient({ baseUrl: '/api' });
  const transport = createRunlightChatTransport({
    baseUrl: '/api',
    client,
    start: '/api/runs',
    runIds: createRunIdMemory(window.sessionStorage),
  });
  const saved = JSON.parse(window.sessionStorage.getItem(MESSAGES_KEY) ?? '[]') as UIMessage[];
  return { client, transport, saved };
}

/** `useChat` on the Runlight transport; `RunStatus` and `RunTimeline` of its run beside it. */
function BrowserChat() {
  const [{ client, transport, saved }] = useState(setup);
  const chat = useChat({
    id: CHAT_ID,
    transport,
    // After a reload, the chat's messages come from the tab and its run's checkpoint.
    messages: saved,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  useEffect(() => {
    window.sessionStorage.setItem(MESSAGES_KEY, JSON.stringify(chat.messages));
  }, [chat.messages]);
  const runId = transport.getRunId(CHAT_ID);
  const busy = chat.status === 'streaming' || chat.status === 'submitted';

  return (
    <RunlightProvider client={client}>
      <div className="chat" data-chat="ready" data-chat-status={chat.status}>
        <aside className="chat-run">
          <h2>Run</h2>
          {runId ? (
            <>
              <p className="chat-run-id">
                <code>{runId}</code>
              </p>
              <RunStatus runId={runId} />
              <RunTimeline runId={runId} className="chat-timeline" />
            </>
          ) : (
            <p className="chat-empty">No run yet: send a message.</p>
          )}
        </aside>
        <section className="chat-main">
          <ol className="chat-messages">
            {chat.messages.length === 0 ? (
              <li className="chat-empty">Ask something, e.g. “clean up the build folder”.</li>
            ) : null}
            {chat.messages.map((message) => (
              <li key={message.id} className="chat-message" data-role={message.role}>
                <span className="chat-role">{message.role === 'user' ? 'You' : 'Assistant'}</span>
                <MessageParts
                  message={message}
                  onApproval={(id, approved) => void chat.addToolApprovalResponse({ id, approved })}
                />
              </li>
            ))}
          </ol>
          {chat.error ? <p className="chat-error">{chat.error.message}</p> : null}
          <form
            className="chat-form"
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
              aria-label="Message"
            />
            <button type="submit" disabled={busy}>
              Send
            </button>
            <button type="button" onClick={() => void chat.stop()} disabled={!busy}>
              Stop
            </button>
          </form>
        </section>
      </div>
    </RunlightProvider>
  );
}
