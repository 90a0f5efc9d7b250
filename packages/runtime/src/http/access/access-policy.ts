import { INTERNAL_ERROR_MESSAGE, jsonError } from '../routes/json-error';
import type { Authorize, RunAction } from './authorize';

/**
 * The access policy of a whole run API (`createRunRouter({ authorize })`, `startGateway`): an
 * `Authorize` function asked on every route, or `'public'` — the explicit choice to serve every
 * run to anyone who asks (a loopback playground, a demo).
 */
export type RunAccessPolicy = Authorize | 'public';

/** How often an open event stream re-asks the policy, unless configured. */
export const DEFAULT_REAUTHORIZE_MS = 60_000;

/** What the router hands the handlers with each request: its policy and the re-ask interval. */
export interface BoundRunAccess {
  /** `null`: the router serves every run (`'public'`). */
  authorize: Authorize | null;
  /** The router's `reauthorizeMs`, when set (it wins over the handlers' own). */
  reauthorizeMs: number | undefined;
}

/**
 * The router's policy for a request, looked up by the handlers it calls (like the raw target of
 * request-target.ts): the handlers' own signatures stay `(request, runId)`, and routes whose
 * run ids only the handler knows (a start's new id, the runs of a multiplexed stream) are asked
 * too, by the handler, before it touches the store.
 */
const bound = new WeakMap<Request, BoundRunAccess>();

/** Binds the router's policy to `request` (the router does this before calling a handler). */
export function bindRunAccess(request: Request, access: BoundRunAccess): void {
  bound.set(request, access);
}

/** The router's policy for `request`, when a router bound one. */
export function boundRunAccess(request: Request): BoundRunAccess | undefined {
  return bound.get(request);
}

/** Where one request's access is decided: the router's policy and the handlers' own. */
export interface AccessQuestion {
  request: Request;
  runId: string;
  action: RunAction;
  /** The handlers' own `authorize` option (asked after the router's; both must allow). */
  own: Authorize | undefined;
  onError: (error: unknown) => void;
}

/**
 * Asks every policy that applies to `request` — the router's first, then the handlers' own —
 * and answers `null` when all allow, else the refusal to send: `false` is `403 forbidden`, a
 * `Response` is sent as is, a throw is the generic `500` (the error goes to `onError`).
 */
export async function askAccess(question: AccessQuestion): Promise<Response | null> {
  const { request, runId, action, own, onError } = question;
  const policies = [boundRunAccess(request)?.authorize ?? undefined, own];
  for (const authorize of policies) {
    if (authorize === undefined || authorize === null) continue;
    let verdict: boolean | Response;
    try {
      verdict = await authorize({ request, runId, action });
    } catch (error) {
      onError(error);
      return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
    }
    if (verdict instanceof Response) return verdict;
    if (verdict !== true)
      return jsonError(403, 'forbidden', `Not allowed to ${action} run ${runId}`);
  }
  return null;
}

/** A refusal as a stream reports it: the status and code its own route would answer. */
export interface AccessRefusal {
  status: number;
  code: string;
}

/** The status and code of a refusal response; its body is released. */
export async function refusalOf(response: Response): Promise<AccessRefusal> {
  await response.body?.cancel().catch(() => {});
  const { status } = response;
  const code =
    status === 401
      ? 'unauthorized'
      : status === 403
        ? 'forbidden'
        : status >= 500
          ? 'internal'
          : 'forbidden';
  return { status, code };
}

/**
 * The periodic re-check of an open stream: `null` while access holds, else the refusal. A
 * refusal of 500 or more means the policy itself failed (already reported to `onError`): the
 * stream then just ends and the client reconnects, which asks again.
 */
export interface StreamReauthorization {
  everyMs: number;
  check(): Promise<AccessRefusal | null>;
}

/**
 * The re-check for a stream of `runId` opened by `request`, or `undefined` when no policy
 * applies (nothing to re-ask) or the interval is `0` / `Infinity` (re-checks off).
 * `reauthorizeMs` is the handlers' own interval; the router's wins when it bound one.
 */
export function streamReauthorization(
  question: Omit<AccessQuestion, 'action'>,
  reauthorizeMs: number | undefined,
): StreamReauthorization | undefined {
  const router = boundRunAccess(question.request);
  if (!router?.authorize && !question.own) return undefined;
  const everyMs = router?.reauthorizeMs ?? reauthorizeMs ?? DEFAULT_REAUTHORIZE_MS;
  if (!(everyMs > 0) || !Number.isFinite(everyMs)) return undefined;
  return {
    everyMs,
    async check() {
      const refused = await askAccess({ ...question, action: 'read' });
      return refused === null ? null : refusalOf(refused);
    },
  };
}
