'use client';

import { useChat } from '@ai-sdk/react';
import { createRunlightChatTransport } from '@runlight/ai-sdk';
import { RunlightProvider } from '@runlight/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { BetweenSteps } from '@/components/runlight/between-steps';
import { CompactionNotice } from '@/components/runlight/compaction-notice';
import { RetryCountdown } from '@/components/runlight/retry-countdown';
import { RunStatusPill } from '@/components/runlight/run-status-pill';
import { RunTimeline } from '@/components/runlight/run-timeline';
import { StalledBanner } from '@/components/runlight/stalled-banner';
import { ChatMessages } from './chat-messages';

const CHAT_ID = 'chat-1';

/**
 * One transport per page, made in the browser: `POST /api/chat` starts a run, `GET /api/chat`
 * gives the conversation back (any tab, any device), `/api` serves the runs. Its client is the
 * provider's too (one event stream per run). `subscribe` tells the page when the run id or
 * `resuming()` may have changed.
 */
function createTransport() {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const transport = createRunlightChatTransport({
    baseUrl: '/api',
    start: '/api/chat',
    chats: '/api/chat',
    // A run id known only after a stop (the start request still answers it) re-renders too.
    onRunStarted: changed,
  });
  // Whether `resume: true`'s reconnect is pending (from the page's start until the first one
  // settles, and during any later one). When it finds nothing to resume, AI SDK 7 sets the
  // status back to `ready` even if a message was sent meanwhile: that send would read as idle,
  // with Stop disabled (the same race: cloudflare/agents#1054). Send waits for it.
  let settled = false;
  let reconnecting = 0;
  const reconnect = transport.reconnectToStream.bind(transport);
  transport.reconnectToStream = async (options) => {
    reconnecting++;
    changed();
    try {
      return await reconnect(options);
    } finally {
      reconnecting--;
      settled = true;
      changed();
    }
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return Object.assign(transport, { subscribe, resuming: () => !settled || reconnecting > 0 });
}

/**
 * The chat: the server's HTML and the browser's first render both say "Loading the chat…" (no
 * hydration error); then the conversation comes from the server and `useChat` mounts with it,
 * resuming a run that is still going.
 */
export function Chat() {
  const [loaded, setLoaded] = useState<{
    transport: ReturnType<typeof createTransport>;
    messages: UIMessage[];
  } | null>(null);
  useEffect(() => {
    const transport = createTransport();
    let live = true;
    transport
      .loadChat(CHAT_ID)
      .then(({ messages }) => live && setLoaded({ transport, messages }))
      .catch(() => live && setLoaded({ transport, messages: [] }));
    return () => {
      live = false;
    };
  }, []);
  if (loaded === null) {
    return (
      <div className="chat" data-chat="loading">
        <p className="chat-empty">Loading the chat…</p>
      </div>
    );
  }
  return <BrowserChat transport={loaded.transport} saved={loaded.messages} />;
}

/**
 * `useChat` on the Runlight transport; beside it the run, with the shadcn registry's components
 * (`registry/runlight`, the sources `npx shadcn add` installs): status pill, retry countdown,
 * compaction notice, between-steps, stalled banner and timeline. Tool approvals are answered in
 * the message (`addToolApprovalResponse`): in a `useChat` app the answer is part of the chat.
 */
function BrowserChat({
  transport,
  saved,
}: {
  transport: ReturnType<typeof createTransport>;
  saved: UIMessage[];
}) {
  const { client } = transport;
  const chat = useChat({
    id: CHAT_ID,
    transport,
    messages: saved,
    resume: true, // a run still going is replayed and followed live
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const runId = useSyncExternalStore(
    transport.subscribe,
    () => transport.getRunId(CHAT_ID),
    () => null,
  );
  const resuming = useSyncExternalStore(transport.subscribe, transport.resuming, () => true);
  const busy = chat.status === 'streaming' || chat.status === 'submitted';

  return (
    <RunlightProvider client={client}>
      <div
        className="chat"
        data-chat="ready"
        data-chat-status={chat.status}
        data-chat-resuming={resuming || undefined}
      >
        <aside className="chat-run">
          <h2>Run</h2>
          {runId ? (
            <>
              <p className="chat-run-id">
                <code>{runId}</code>
              </p>
              <RunStatusPill runId={runId} />
              <RetryCountdown runId={runId} />
              <CompactionNotice runId={runId} />
              <BetweenSteps runId={runId} />
              {/* Nothing in this example takes a stalled run over (no `createRunRecovery`). */}
              <StalledBanner runId={runId} recovers={false} />
              <RunTimeline runId={runId} className="chat-timeline" />
            </>
          ) : (
            <p className="chat-empty">No run yet: send a message.</p>
          )}
        </aside>
        <section className="chat-main">
          <ChatMessages
            messages={chat.messages}
            latestRunId={runId}
            onApproval={(id, approved) => void chat.addToolApprovalResponse({ id, approved })}
          />
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
            <button type="submit" disabled={busy || resuming}>
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
