import { useChat } from '@ai-sdk/react';
import { createRunlightClient } from '@runlight/client';
import { renderHook, waitFor as waitForDom } from '@testing-library/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { createRunlightChatTransport } from '../create-runlight-chat-transport';
import { createRunIdMemory } from '../run-id-memory';
import { serveChat } from './chat-server';

/** Shared by the `useChat` suites: a server, pages of one tab, and a rendered chat. */
export const waitFor = <T,>(check: () => T | Promise<T>, timeout = 10_000) =>
  waitForDom(check, { timeout, interval: 10 });

export const words = Array.from({ length: 40 }, (_, index) => `word${index} `).join('');

export const closers: (() => Promise<void>)[] = [];

export type Chat = ReturnType<typeof useChat>;

export function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The message as durable facts hold it: what the chat must show, without the chat's metadata. */
export const comparable = (message: UIMessage | undefined | null) =>
  message ? { id: message.id, role: message.role, parts: message.parts } : message;

export async function setup(
  options: Parameters<typeof serveChat>[0] & {
    /** The start route the transport POSTs to: the library's `/runs` or the one-line `/chat`. */
    route?: '/runs' | '/chat';
  },
) {
  const server = await serveChat(options);
  closers.push(server.close);
  const storage = new Map<string, string>();
  const webStorage = {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => void storage.set(key, value),
  };
  /** A page: a fresh client and transport over the same tab storage (survives a "reload"). */
  /**
   * `device: true` is another browser context or device: no tab storage of its own; it finds
   * the chat through the server's chat route only (`chats`).
   */
  const page = (context: { device?: boolean } = {}) => {
    const started: string[] = [];
    // Closing the tab ends every request of the page and sends nothing more (no cleanup runs).
    const tab = new AbortController();
    const fetch: typeof globalThis.fetch = (input, init = {}) => {
      if (tab.signal.aborted) return Promise.reject(new TypeError('fetch failed: the tab is gone'));
      const signal = init.signal ? AbortSignal.any([init.signal, tab.signal]) : tab.signal;
      return globalThis.fetch(input, { ...init, signal });
    };
    const client = createRunlightClient({
      baseUrl: server.baseUrl,
      fetch,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const transport = createRunlightChatTransport({
      baseUrl: server.baseUrl,
      client,
      fetch,
      start: `${server.baseUrl}${options.route ?? '/runs'}`,
      ...(context.device
        ? { chats: `${server.baseUrl}/chat` }
        : { runIds: createRunIdMemory(webStorage) }),
      onRunStarted: ({ runId }) => started.push(runId),
    });
    return { client, transport, started, closeTab: () => tab.abort() };
  };
  return { server, page };
}

/** Renders `useChat` and records every assistant text it rendered. */
export function renderChat(
  transport: ReturnType<typeof createRunlightChatTransport>,
  options: { id: string; messages?: UIMessage[]; resume?: boolean },
  render: { strict?: boolean } = {},
) {
  const texts: string[] = [];
  const hook = renderHook(
    () => {
      const chat = useChat({
        id: options.id,
        transport,
        ...(options.messages ? { messages: options.messages } : {}),
        ...(options.resume ? { resume: true } : {}),
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      });
      const last = chat.messages.at(-1);
      if (last?.role === 'assistant') texts.push(textOf(last));
      return chat;
    },
    { reactStrictMode: render.strict ?? false },
  );
  return { ...hook, texts, chat: () => hook.result.current as Chat };
}

export const checkpointed = async (server: Awaited<ReturnType<typeof serveChat>>, runId: string) =>
  (await server.store.getSnapshot(runId)).assistant?.message;
