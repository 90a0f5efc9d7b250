import { createRunlightClient, type RunlightClient, selectMessage } from '@runlight/client';
import { isTerminalStatus } from '@runlight/protocol';
import { type ChatTransport, generateId, type UIMessage, type UIMessageChunk } from 'ai';
import { getChat, type LoadedChat } from './chat-conversation';
import { chunkCursorOf, emptyChunkCursor } from './message-chunks';
import { runChunkStream } from './run-chunk-stream';
import { createRunIdMemory, type RunIdMemory } from './run-id-memory';
import {
  type ApprovalAnswer,
  type PostInit,
  postApprovals,
  postCancel,
  postStart,
} from './run-routes';

/** What the start route (or function) receives: the `sendMessages` call of `useChat`. */
export interface StartRunRequest<UI_MESSAGE extends UIMessage = UIMessage> {
  chatId: string;
  trigger: 'submit-message' | 'regenerate-message';
  messageId: string | undefined;
  /**
   * New for every `sendMessages` call and POSTed with it: a retried POST repeats it, so a
   * start route keyed on it (`createChatStartRoute`) starts one run per send, never two.
   */
  requestId: string;
  messages: UI_MESSAGE[];
  /** `useChat`'s per-request `body`, spread into the POSTed JSON. */
  body?: object;
  headers?: Record<string, string> | Headers;
  metadata?: unknown;
  abortSignal?: AbortSignal;
}

export interface RunlightChatTransportOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /** Where the run handlers are mounted, e.g. `/api` (→ `/api/runs/:id`, `/api/runs/:id/cancel`). */
  baseUrl: string;
  /** The headless client whose stores the chat reads (share it with `RunlightProvider`). */
  client?: RunlightClient;
  /**
   * Starts a run for the chat's messages: a URL POSTed with JSON
   * `{ chatId, trigger, messageId, messages, ...body }` that answers `{ runId }`, or a function.
   */
  start: string | ((request: StartRunRequest<UI_MESSAGE>) => Promise<{ runId: string }>);
  /**
   * Where the chat read route is (`GET {chats}?chatId=` → `{ runId, messages }`, e.g. the same
   * `/api/chat` as `start` with `createChatRoutes` of `@runlight/runtime`). With it, the chat →
   * run lookup is the server's: `reconnectToStream` finds the chat's run after a reload, in
   * another tab and on another device, and `loadChat` gives back the whole conversation.
   */
  chats?: string;
  /**
   * Chat id → run id in this page (`getRunId`), and the lookup of `reconnectToStream` when no
   * `chats` route is given. Default in memory; `createRunIdMemory(sessionStorage)` survives a
   * reload of the tab (create it in the browser only: there is no `sessionStorage` on a server).
   */
  runIds?: RunIdMemory;
  /** Called when a run answers the chat (to show `RunStatus runId={…}` beside it). */
  onRunStarted?: (info: { chatId: string; runId: string }) => void;
  /**
   * `stop()` cancels the run (`POST …/runs/:id/cancel`). Default true; false only disconnects.
   * `useChat` also stops when it unmounts: an app that navigates away from a chat in the same
   * page and wants the run to go on sets `false` and cancels with `transport.cancel(chatId)`.
   * (A reload or a closed tab sends nothing, so the run goes on and `reconnectToStream` finds it.)
   */
  cancelOnStop?: boolean;
  /** Failures of a cancel request (the chat has already stopped). Default: ignored. */
  onError?: (error: unknown) => void;
  /**
   * Headers of every request the transport makes — start, approvals, cancel, and (for the
   * client it creates) snapshots and event streams — or a function asked before each one, so
   * a refreshed token is used. `useChat`'s per-request `headers` are added on top.
   */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /** `fetch`'s `credentials` for every request, e.g. `'include'` across origins. */
  credentials?: RequestCredentials;
  /**
   * The transport. Without one, the tabs of a page share each run's event stream (the
   * client's `shareTabs`); with your own, each tab keeps its own (pass `client` to choose).
   */
  fetch?: typeof globalThis.fetch;
}

export interface RunlightChatTransport<UI_MESSAGE extends UIMessage = UIMessage>
  extends ChatTransport<UI_MESSAGE> {
  readonly resumeStreamIsReplay: true;
  /**
   * The client whose stores the chat reads (the one passed, or the one the transport made):
   * give it to `<RunlightProvider client={transport.client}>`, so `RunStatus` and the chat
   * share one client — one snapshot and one event stream per run.
   */
  readonly client: RunlightClient;
  /** The run that answers (or last answered) `chatId`, or `null`. */
  getRunId(chatId: string): string | null;
  /** The run's checkpointed assistant message (e.g. for `useChat({ messages })` after a reload). */
  loadRunMessage(runId: string): Promise<UIMessage | null>;
  /**
   * The chat's whole conversation from the `chats` route — user and assistant messages for
   * `useChat({ messages })` — and its latest run (remembered for `getRunId`). Without `chats`:
   * the assistant message of the run this page remembers, if any.
   */
  loadChat(chatId: string): Promise<LoadedChat>;
  /** Cancels the chat's run (`POST …/runs/:id/cancel`), e.g. with `cancelOnStop: false`. */
  cancel(chatId: string): Promise<void>;
}

/** The approvals the chat answered on its copy of the run's message, not yet sent. */
function answeredApprovals(message: UIMessage | undefined): ApprovalAnswer[] {
  if (message?.role !== 'assistant') return [];
  return message.parts.flatMap((part) => {
    if (!('state' in part) || part.state !== 'approval-responded' || !('approval' in part))
      return [];
    const approval = part.approval as { id: string; approved?: boolean; reason?: string };
    if (approval.approved === undefined) return [];
    return [
      {
        approvalId: approval.id,
        approved: approval.approved,
        ...(approval.reason === undefined ? {} : { reason: approval.reason }),
      },
    ];
  });
}

function runIdOf(message: UIMessage | undefined): string | null {
  const runId = (message?.metadata as { runId?: unknown } | undefined)?.runId;
  return typeof runId === 'string' ? runId : null;
}

/**
 * A `ChatTransport` for the AI SDK's `useChat` on durable Runlight runs.
 *
 * - `sendMessages` asks the application's start route for a run, then streams the run's
 *   assistant message from its resumable SSE through a `@runlight/client` store: the
 *   checkpointed message, then live deltas, resumed by cursor after any drop (no text twice).
 *   The run id is on the message's metadata (`{ runId }`) and passed to `onRunStarted`.
 * - After `addToolApprovalResponse` (with `sendAutomaticallyWhen:
 *   lastAssistantMessageIsCompleteWithApprovalResponses`) it POSTs the answers to
 *   `…/runs/:id/approvals` and continues the same message.
 * - `reconnectToStream` finds the chat's run (`runIds`) and replays its message from the start
 *   (`resumeStreamIsReplay: true`: the chat resets its partial copy on `start`), then follows it
 *   live; `null` when the chat has no run or its run has ended.
 * - `stop()` cancels the run (`POST …/runs/:id/cancel`) unless `cancelOnStop: false`.
 *
 * @example
 * const transport = createRunlightChatTransport({ baseUrl: '/api', start: '/api/chat' });
 * const chat = useChat({ id: chatId, transport, resume: true });
 */
export function createRunlightChatTransport<UI_MESSAGE extends UIMessage = UIMessage>(
  options: RunlightChatTransportOptions<UI_MESSAGE>,
): RunlightChatTransport<UI_MESSAGE> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const { headers: ownHeaders, credentials } = options;
  const client =
    options.client ??
    createRunlightClient({
      baseUrl,
      fetch,
      // The global `fetch` under the transport's wrapper: tabs share the run streams (issue 48).
      shareTabs: options.fetch === undefined,
      ...(ownHeaders === undefined ? {} : { headers: ownHeaders }),
      ...(credentials === undefined ? {} : { credentials }),
    });
  /** The transport's headers under the call's own (`useChat`'s per-request headers win). */
  const initOf = async (call: { headers?: HeadersInit; signal?: AbortSignal } = {}) => {
    const headers = new Headers(
      typeof ownHeaders === 'function' ? await ownHeaders() : (ownHeaders ?? {}),
    );
    for (const [name, value] of new Headers(call.headers)) headers.set(name, value);
    const init: PostInit = { headers };
    if (credentials !== undefined) init.credentials = credentials;
    if (call.signal !== undefined) init.signal = call.signal;
    return init;
  };
  const runIds = options.runIds ?? createRunIdMemory();
  const cancelOnStop = options.cancelOnStop ?? true;
  const onError = options.onError ?? (() => {});

  const loadRunMessage = async (runId: string): Promise<UIMessage | null> => {
    const store = client.run(runId);
    if (store.getState().run === null) await store.reload();
    return selectMessage(store.getState());
  };

  /** The chat's run: the server's latest (`chats`), else the one this page remembers. */
  const lookUp = async (chatId: string, signal?: AbortSignal): Promise<string | null> => {
    if (options.chats === undefined) return runIds.get(chatId);
    const { runId } = await getChat(
      fetch,
      options.chats,
      chatId,
      await initOf(signal ? { signal } : {}),
    );
    if (runId !== null) runIds.set(chatId, runId);
    return runId;
  };

  const start = async (request: StartRunRequest<UI_MESSAGE>): Promise<string> => {
    if (typeof options.start !== 'string') return (await options.start(request)).runId;
    const { chatId, trigger, messageId, messages, body, headers, requestId } = request;
    // Not aborted with the chat: a start the user stopped still answers its run id, so the
    // run is cancelled as soon as it is known instead of executing unseen to its end.
    const started = await postStart(
      fetch,
      options.start,
      { ...body, chatId, trigger, messageId, requestId, messages },
      await initOf(headers ? { headers } : {}),
    );
    return started.runId;
  };

  const cancelRun = (runId: string, headers?: HeadersInit) => {
    const run = client.run(runId).getState().run;
    if (run !== null && isTerminalStatus(run.status)) return;
    initOf(headers ? { headers } : {})
      .then((init) => postCancel(fetch, baseUrl, runId, init))
      .catch(onError);
  };

  const stream = (
    runId: string,
    cursor: ReturnType<typeof emptyChunkCursor>,
    abortSignal: AbortSignal | undefined,
    answered?: ReadonlySet<string>,
    headers?: HeadersInit,
  ): ReadableStream<UIMessageChunk> => {
    if (abortSignal && cancelOnStop) {
      // Stopped while the start was under way: the run is cancelled now that its id is known.
      if (abortSignal.aborted) cancelRun(runId, headers);
      else abortSignal.addEventListener('abort', () => cancelRun(runId, headers), { once: true });
    }
    return runChunkStream({
      store: client.run(runId),
      cursor,
      metadata: { runId },
      ...(answered ? { answered } : {}),
      ...(abortSignal ? { signal: abortSignal } : {}),
    });
  };

  return {
    resumeStreamIsReplay: true,
    client,

    async sendMessages({
      chatId,
      trigger,
      messageId,
      messages,
      abortSignal,
      body,
      headers,
      metadata,
    }) {
      const last = messages.at(-1);
      const answers = trigger === 'submit-message' ? answeredApprovals(last) : [];
      const pausedRun = runIdOf(last) ?? runIds.get(chatId);
      if (answers.length > 0 && pausedRun !== null && last !== undefined) {
        await postApprovals(
          fetch,
          baseUrl,
          pausedRun,
          answers,
          await initOf({
            ...(headers ? { headers } : {}),
            ...(abortSignal ? { signal: abortSignal } : {}),
          }),
        );
        const answered = new Set(answers.map((answer) => answer.approvalId));
        return stream(pausedRun, chunkCursorOf(last), abortSignal, answered, headers);
      }
      const runId = await start({
        chatId,
        trigger,
        messageId,
        requestId: generateId(),
        messages,
        ...(body ? { body } : {}),
        ...(headers ? { headers } : {}),
        ...(metadata === undefined ? {} : { metadata }),
        ...(abortSignal ? { abortSignal } : {}),
      });
      runIds.set(chatId, runId);
      options.onRunStarted?.({ chatId, runId });
      return stream(runId, emptyChunkCursor(), abortSignal, undefined, headers);
    },

    async reconnectToStream({ chatId, abortSignal, headers }) {
      const runId = await lookUp(chatId, abortSignal);
      if (runId === null) return null;
      const store = client.run(runId);
      await store.reload();
      const run = store.getState().run;
      if (run === null || isTerminalStatus(run.status)) return null;
      // Aborted before the stream was handed over (React's StrictMode mounts, stops and mounts
      // again): nothing was shown, nothing is cancelled. A `stop()` from then on cancels the run.
      if (abortSignal?.aborted) return null;
      options.onRunStarted?.({ chatId, runId });
      return stream(runId, emptyChunkCursor(), abortSignal, undefined, headers);
    },

    getRunId: (chatId) => runIds.get(chatId),

    async cancel(chatId) {
      const runId = runIds.get(chatId);
      if (runId !== null) await postCancel(fetch, baseUrl, runId, await initOf());
    },

    async loadChat(chatId) {
      if (options.chats === undefined) {
        // Only the assistant side is known here; while the run goes on, resuming replays it.
        const runId = runIds.get(chatId);
        const message = runId === null ? null : await loadRunMessage(runId);
        const run = runId === null ? null : client.run(runId).getState().run;
        const ended = run !== null && isTerminalStatus(run.status);
        return { runId, messages: message && ended ? [{ ...message, metadata: { runId } }] : [] };
      }
      const loaded = await getChat(fetch, options.chats, chatId, await initOf());
      if (loaded.runId !== null) runIds.set(chatId, loaded.runId);
      return loaded;
    },

    loadRunMessage,
  };
}
