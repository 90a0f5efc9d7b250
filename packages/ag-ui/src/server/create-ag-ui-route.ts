import type { Message, RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { RunIdSchema } from '@runlight/protocol';
import {
  AccessPolicyError,
  type Authorize,
  type AuthorizeInput,
  createRunHandlers,
  createRunRouter,
  InvalidTransitionError,
  inProcessFetch,
  RunNotFoundError,
  RuntimeClosedError,
  readJsonBody,
} from '@runlight/runtime';
import { fromStoredConversation, toStoredConversation } from '../mapping/stored-conversation';
import { toModelMessages } from '../mapping/to-model-messages';
import type { AgUiRouteOptions } from './ag-ui-route-options';
import { answeredApprovals, approvalsOf } from './resume-answers';
import { streamRun } from './stream-run';

const BASE_URL = 'http://in-process.invalid/runlight';
const CURSOR = /^(0|[1-9]\d{0,19})(:(0|[1-9]\d{0,19}):([1-9]\d{0,19}))?$/;

const error = (status: number, code: string, message: string) =>
  Response.json({ error: { code, message } }, { status, headers: { 'Cache-Control': 'no-store' } });
const INTERNAL = () => error(500, 'internal', 'The server could not answer this request.');

const sse = (body: ReadableStream<Uint8Array>) =>
  new Response(body, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store, no-transform',
      'X-Accel-Buffering': 'no',
    },
  });

/**
 * AG-UI for Runlight runs: one `(request) => Response` to mount at a path of your server
 * (e.g. `/api/ag-ui`).
 *
 * - `POST` a `RunAgentInput` → starts a run through your `start` (as `createChatRoutes` does)
 *   and answers `200 text/event-stream` of AG-UI events, each SSE `id` the run's cursor.
 *   With `resume` entries (answers to this route's interrupts, `<runId>/<approvalId>`) it records
 *   the approvals through the runtime's durable approvals route — exactly once: a second answer
 *   is `409 already_resuming`, an answered approval `409 not_awaiting_approval` — and streams
 *   the run on from a snapshot.
 * - `GET ?runId=<id>` (the resume extension; `Last-Event-ID` optional) → `MESSAGES_SNAPSHOT`,
 *   `STATE_SNAPSHOT`, the current `runlight.operation` activity, then live. History is never
 *   replayed: an answered approval is never offered again, no text is doubled.
 *
 * Every request asks `authorize` before any body is read (`start` with the new id, then
 * `approve` for the run a resume answers; `read` for a resume stream, re-asked while it is open).
 *
 * @example
 * const agUi = createAgUiRoute({ runtime, store, authorize, start: () => ({ model, tools }) });
 * app.all('/api/ag-ui', (c) => agUi(c.req.raw));
 */
export function createAgUiRoute(
  options: AgUiRouteOptions,
): (request: Request) => Promise<Response> {
  const policy = options.authorize;
  if (typeof policy !== 'function' && policy !== 'public') {
    throw new AccessPolicyError(
      policy === undefined ? 'missing' : 'invalid',
      "createAgUiRoute needs `authorize`: a function asked on every request, or 'public' on purpose",
    );
  }
  const onError = options.onError ?? (() => {});
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const reauthorizeMs = options.reauthorizeMs ?? 60_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  // The runtime's own run routes, answered in process: snapshots, the event stream from a
  // cursor, and the durable approvals. This route has asked the policy before it calls them.
  const router = createRunRouter({
    handlers: createRunHandlers({ store: options.store, runtime: options.runtime, onError }),
    basePath: '/runlight',
    authorize: 'public',
    reauthorizeMs: 0,
  });
  const fetch = inProcessFetch(router);

  /** `null` when allowed, else the refusal to answer (or, for a stream, its status and code). */
  const ask = async (input: AuthorizeInput): Promise<Response | null> => {
    if (policy === 'public') return null;
    try {
      const answer = await (policy as Authorize)(input);
      if (answer === true) return null;
      if (answer instanceof Response) return answer;
      return error(403, 'forbidden', 'Not allowed');
    } catch (failure) {
      onError(failure);
      return INTERNAL();
    }
  };

  const follow = (
    request: Request,
    stream: Omit<
      Parameters<typeof streamRun>[0],
      'fetch' | 'baseUrl' | 'signal' | 'heartbeatMs' | 'onError'
    >,
  ) =>
    sse(
      streamRun({
        ...stream,
        fetch,
        baseUrl: BASE_URL,
        signal: request.signal,
        heartbeatMs,
        onError,
        reauthorize: {
          everyMs: reauthorizeMs,
          ask: async () => {
            const refused = await ask({ request, runId: stream.runId, action: 'read' });
            if (refused === null) return null;
            await refused.body?.cancel().catch(() => {});
            return {
              status: refused.status,
              code: refused.status === 401 ? 'unauthorized' : 'forbidden',
            };
          },
        },
      }),
    );

  const storedInput = async (runId: string): Promise<Message[]> =>
    fromStoredConversation((await options.store.runInputs?.get(runId))?.messages ?? []);

  async function connect(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const runId = url.searchParams.get('runId') ?? '';
    if (!RunIdSchema.safeParse(runId).success) {
      return error(400, 'bad_run_id', 'runId must be a Runlight run id');
    }
    const refused = await ask({ request, runId, action: 'read' });
    if (refused) return refused;
    const lastEventId = request.headers.get('last-event-id') ?? url.searchParams.get('after');
    if (lastEventId !== null && lastEventId !== '' && !CURSOR.test(lastEventId)) {
      return error(400, 'bad_cursor', 'Last-Event-ID must be a Runlight run cursor');
    }
    try {
      await options.store.getSnapshot(runId);
      const input = await options.store.runInputs?.get(runId);
      return follow(request, {
        runId,
        threadId: input?.chatId ?? runId,
        mode: 'snapshot',
        input: fromStoredConversation(input?.messages ?? []),
        answered: await answeredApprovals(options.store, runId),
      });
    } catch (failure) {
      if (RunNotFoundError.isInstance(failure)) {
        return error(404, 'run_not_found', `Run ${runId} does not exist`);
      }
      onError(failure);
      return INTERNAL();
    }
  }

  async function resume(request: Request, input: RunAgentInput): Promise<Response> {
    const answers = approvalsOf(input.resume ?? []);
    if (!answers.ok) return error(400, 'bad_body', answers.message);
    const { runId, approvals } = answers;
    const refused = await ask({ request, runId, action: 'approve' });
    if (refused) return refused;
    // The runtime's durable approvals route: checked against the stored run, recorded once.
    const recorded = await fetch(`${BASE_URL}/runs/${runId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approvals }),
    });
    if (recorded.status !== 202) return recorded;
    return follow(request, {
      runId,
      threadId: input.threadId,
      mode: 'snapshot',
      input: await storedInput(runId),
      answered: new Set(approvals.map((approval) => approval.approvalId)),
    });
  }

  async function start(request: Request): Promise<Response> {
    const runId = `run-${crypto.randomUUID()}`;
    // Asked before the body is read: a client that may not start runs costs nothing more.
    const refused = await ask({ request, runId, action: 'start' });
    if (refused) return refused;
    const read = await readJsonBody(request, maxBodyBytes);
    if (!read.ok) return read.response;
    const parsed = RunAgentInputSchema.safeParse(read.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
      return error(400, 'bad_body', `${where}: ${issue?.message ?? 'is not a RunAgentInput'}`);
    }
    const input = parsed.data as RunAgentInput;
    if ((input.resume ?? []).length > 0) return resume(request, input);
    if (input.threadId.length > 200)
      return error(400, 'bad_body', 'threadId: at most 200 characters');
    try {
      const run = await options.start({ request, runId, input });
      if (run instanceof Response) return run;
      const handle = options.runtime.startRun({
        ...run,
        runId,
        messages: run.messages ?? toModelMessages(input.messages),
        conversation: { chatId: input.threadId, messages: toStoredConversation(input.messages) },
      });
      handle.done.catch((failure: unknown) => {
        if (!InvalidTransitionError.isInstance(failure)) onError(failure);
      });
      await handle.created;
      return follow(request, {
        runId,
        threadId: input.threadId,
        mode: 'start',
        input: input.messages,
        answered: new Set(),
      });
    } catch (failure) {
      if (RuntimeClosedError.isInstance(failure)) {
        return error(503, 'runtime_closed', 'The server is shutting down; retry the start');
      }
      onError(failure);
      return INTERNAL();
    }
  }

  return async (request) => {
    if (request.method === 'GET') return connect(request);
    if (request.method === 'POST') return start(request);
    return new Response(null, { status: 405, headers: { Allow: 'GET, POST' } });
  };
}
