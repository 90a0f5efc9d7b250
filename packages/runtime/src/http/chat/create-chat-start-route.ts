import {
  convertToModelMessages,
  type ModelMessage,
  safeValidateUIMessages,
  type ToolSet,
  type UIMessage,
} from 'ai';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { RuntimeClosedError } from '../../errors/runtime-closed-error';
import type { AgentRuntime } from '../../runner/agent-runtime';
import type { StartRunOptions } from '../../runner/run-options';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import {
  createAccessGate,
  type RunAccessPolicy,
  requireAccessPolicy,
} from '../access/access-policy';
import { type CrossSiteOptions, crossSiteGuardOf } from '../access/cross-site-guard';
import { INTERNAL_ERROR_MESSAGE, jsonError } from '../json-error';
import { readJsonBody } from '../routes/read-json-body';
import { chatRunId } from './chat-run-id';
import { type ChatStartBody, chatStartBodySchema } from './chat-start-body';

/** What the app's `run` callback receives: the validated chat request. */
export interface ChatStartInput {
  request: Request;
  /** The run's id (derived from the chat, the message and the request: a retry repeats it). */
  runId: string;
  chatId: string;
  trigger: ChatStartBody['trigger'];
  /** The message the request answers (`useChat`'s `messageId`, else the last message's id). */
  messageId: string;
  /** The conversation `useChat` sent, validated by the AI SDK. */
  messages: UIMessage[];
  /** The whole JSON body (with `useChat`'s per-request `body` keys). */
  body: ChatStartBody;
}

/** The run's options besides its id; `messages` defaults to the converted chat messages. */
export type ChatRunOptions = Omit<StartRunOptions, 'runId' | 'messages' | 'conversation'> & {
  messages?: ModelMessage[];
};

export interface ChatStartRouteOptions {
  runtime: Pick<AgentRuntime, 'startRun'>;
  /**
   * Where the chat's runs are listed (`store.runInputs`), so the policy is asked about the chat
   * it would append to. A store that keeps no run inputs stores no chats: each is new.
   */
  store: Pick<AgentRuntimeStore, 'runInputs'>;
  /**
   * Who may start a chat's run, asked twice (`Authorize`: `false` → `403`, a `Response` sent as
   * is, e.g. a `401`): `start` with `runId: ''` before a byte of the body is read (who is
   * asking), then `start` with the run's id, the `chatId` and the chat's existing runs
   * (`chatRuns`) once the envelope is valid — before the messages are validated, `run` is
   * called or anything starts. Pass the run router's policy to have one for every route, or
   * `'public'` on purpose. Required: without it the route is not built (`AccessPolicyError`).
   */
  authorize: RunAccessPolicy;
  /**
   * Refuse a send from another site (`403 cross_site`, before anything else): set it for a
   * cookie session, as on the run router (`createRunRouter({ refuseCrossSite })`). `true`, or
   * `{ trustedOrigins }`. Off by default.
   */
  refuseCrossSite?: boolean | CrossSiteOptions;
  /** The model, tools and per-run options of the chat's run (`startRun`'s options). */
  run: (input: ChatStartInput) => ChatRunOptions | Response | Promise<ChatRunOptions | Response>;
  /**
   * The tools the messages may hold parts of: their inputs and outputs are validated against
   * the tools' schemas and converted with them. Default: the `tools` `run` returns.
   */
  tools?: ToolSet;
  /** Largest body in bytes. Default 1 MiB (a long chat is sent whole). */
  maxBodyBytes?: number;
  /** Most messages one start may carry. Default 500. */
  maxMessages?: number;
  /** Failures the client gets a generic 500 for, and failures of a started execution. */
  onError?: (error: unknown) => void;
}

const DEFAULT_MAX_CHAT_BODY_BYTES = 1024 * 1024;

const json = (body: object, status: number) =>
  Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });

/**
 * A chat's start route in one line: takes the JSON `createRunlightChatTransport` POSTs for
 * `useChat` (`{ chatId, trigger, messageId, requestId, messages }`), validates it (the envelope
 * with zod, the messages with the AI SDK's `safeValidateUIMessages`), converts the messages
 * (`convertToModelMessages`), starts the run and answers `201 { runId }` once it exists.
 *
 * - **Idempotent:** the run id is derived from the chat id, the message id and the request id
 *   (`chatRunId`), so a retried POST names the run the first one started and answers
 *   `200 { runId }` for it instead of starting a second run.
 * - Bad input is `400 bad_body` (`413`/`415` for the body itself), a runtime shutting down
 *   `503 runtime_closed`, anything else `500 internal` (details to `onError` only).
 * - The run stores the chat's messages (`conversation`, when the store keeps run inputs), so
 *   `createChatReadRoute` / `loadChatConversation` give the whole conversation back.
 * - The execution's `done` is always observed: no unhandled rejection.
 *
 * - **Behind `authorize`** (required, or `'public'`): asked `start` before the body is read,
 *   and again about the chat (`chatId`, its runs) before the messages are validated, the model
 *   is chosen or a run starts — a chat belongs to whoever started it.
 *
 * @example
 * // app/api/chat/route.ts (Next.js)
 * export const POST = createChatStartRoute({
 *   runtime,
 *   store,
 *   authorize,
 *   run: () => ({ model, tools }),
 * });
 */
export function createChatStartRoute(
  options: ChatStartRouteOptions,
): (request: Request) => Promise<Response> {
  const gate = createAccessGate({
    own: requireAccessPolicy(options.authorize, 'createChatStartRoute'),
    reauthorizeMs: undefined,
    onError: options.onError ?? (() => {}),
    where: 'createChatStartRoute',
  });
  // A store that keeps no run inputs stores no chats: every chat is new (`chatRuns: []`).
  const inputs = options.store.runInputs;
  const schema = chatStartBodySchema(options.maxMessages);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_CHAT_BODY_BYTES;
  const onError = options.onError ?? (() => {});

  const crossSite = crossSiteGuardOf(options.refuseCrossSite);
  return async (request) => {
    const forged = crossSite?.(request);
    if (forged) return forged;
    // Who is asking, before a byte of the body is read: a stranger's upload costs nothing.
    const stranger = await gate.ask({ request, runId: '', action: 'start' }, undefined);
    if (stranger) return stranger;
    // Read within the limit as it streams; an aborted upload is the client's doing (no onError).
    const read = await readJsonBody(request, maxBodyBytes);
    if (!read.ok) return read.response;
    const parsed = schema.safeParse(read.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
      return jsonError(400, 'bad_body', `${where}: ${issue?.message ?? 'is invalid'}`);
    }
    const body = parsed.data;
    // The id the policy is asked about: the message's as `useChat` sent it (a message without
    // a string id fails the AI SDK's validation below anyway).
    const sentId = body.messageId ?? (body.messages.at(-1) as { id?: unknown } | null)?.id;
    if (typeof sentId !== 'string') {
      return jsonError(400, 'bad_body', 'messages: not valid AI SDK UI messages');
    }
    const runId = await chatRunId({ ...body, messageId: sentId });
    // The chat itself, with its runs: a client-chosen chat id grants nothing. Asked before the
    // messages are validated, `run` picks a model or anything starts.
    let chatRuns: string[];
    try {
      const runs = inputs ? await inputs.listChatRuns(body.chatId, { limit: 20 }) : [];
      chatRuns = runs.map((run) => run.runId);
    } catch (error) {
      onError(error);
      return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
    }
    const refused = await gate.ask(
      { request, runId, action: 'start', chatId: body.chatId, chatRuns },
      undefined,
    );
    if (refused) return refused;
    const validated = await safeValidateUIMessages({
      messages: body.messages,
      ...(options.tools ? { tools: options.tools as never } : {}),
    });
    if (!validated.success) {
      return jsonError(400, 'bad_body', 'messages: not valid AI SDK UI messages');
    }
    const messages = validated.data;
    const messageId = body.messageId ?? messages.at(-1)!.id;
    try {
      const run = await options.run({
        request,
        runId,
        chatId: body.chatId,
        trigger: body.trigger,
        messageId,
        messages,
        body,
      });
      if (run instanceof Response) return run;
      const tools = options.tools ?? run.tools;
      const modelMessages =
        run.messages ?? (await convertToModelMessages(messages, tools ? { tools } : {}));
      const handle = options.runtime.startRun({
        ...run,
        runId,
        messages: modelMessages,
        // Stored with the run: a reload or another device restores the whole conversation.
        conversation: { chatId: body.chatId, messages },
      });
      handle.done.catch((error: unknown) => {
        if (!InvalidTransitionError.isInstance(error)) onError(error);
      });
      try {
        await handle.created;
      } catch (error) {
        // The id is this chat's, message's and request's: the run a retried POST names.
        if (
          InvalidTransitionError.isInstance(error) &&
          (error.rule === 'run-exists' || error.rule === 'run-ended')
        ) {
          return json({ runId }, 200);
        }
        throw error;
      }
      return json({ runId }, 201);
    } catch (error) {
      if (RuntimeClosedError.isInstance(error)) {
        return jsonError(503, 'runtime_closed', 'The server is shutting down; retry the start');
      }
      onError(error);
      return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
    }
  };
}
