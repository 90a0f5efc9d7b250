import { INTERNAL_ERROR_MESSAGE, jsonError } from '../json-error';
import { AccessPolicyError } from './access-policy-error';
import type { Authorize, AuthorizeInput } from './authorize';

/**
 * The access policy of a set of routes (`createRunRouter({ authorize })`, the handlers' own
 * `authorize`, `createChatRoutes`, `startGateway`): an `Authorize` function asked on every
 * route, or `'public'` — the explicit choice to serve every run to anyone who asks (a loopback
 * playground, a demo). Serving without a policy is only ever this explicit `'public'`.
 */
export type RunAccessPolicy = Authorize | 'public';

/** How often an open event stream re-asks the policy, unless configured. */
export const DEFAULT_REAUTHORIZE_MS = 60_000;

/**
 * What a router hands the handlers it calls, **as an argument of each call** (never through
 * module state: a bundler may load the router and the handlers from two copies of this
 * package, which share no module-level map). Handlers called without one ask only their own
 * `authorize`, and refuse every request when they have none.
 */
export interface RouterAccess {
  /** The router's policy. */
  authorize: RunAccessPolicy;
  /** The router's `reauthorizeMs`, when set (it wins over the handlers' own). */
  reauthorizeMs?: number | undefined;
}

/** `true` for an `Authorize` function or `'public'`. */
export function isAccessPolicy(value: unknown): value is RunAccessPolicy {
  return typeof value === 'function' || value === 'public';
}

/**
 * `value` as a policy, or `AccessPolicyError` (`missing` / `invalid`): for the APIs whose
 * routes need one to be built at all (`createRunRouter`, the chat routes).
 */
export function requireAccessPolicy(value: unknown, where: string): RunAccessPolicy {
  if (isAccessPolicy(value)) return value;
  const missing = value === undefined;
  throw new AccessPolicyError(
    missing ? 'missing' : 'invalid',
    `${where} needs \`authorize\`: a function asked on every route, or 'public' to serve every ` +
      `run to anyone on purpose${missing ? '' : ` (got ${typeof value})`}`,
  );
}

/** An optional policy (the handlers' own): absent is fine, anything else must be a policy. */
export function optionalAccessPolicy(value: unknown, where: string): RunAccessPolicy | undefined {
  return value === undefined ? undefined : requireAccessPolicy(value, where);
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

/** What a set of handlers asks before it reads or changes anything. */
export interface AccessGate {
  /**
   * Asks every policy that applies — the router's (when it passed one) first, then the
   * handlers' own — and answers `null` when all allow, else the refusal to send: `false` is
   * `403 forbidden`, a `Response` is sent as is, a throw is the generic `500` (the error goes to
   * `onError`). **No policy at all is a `403`**: handlers never serve by omission. `forbidden`
   * replaces the `403` a `false` gets (the chat read answers a refused chat as an unknown one).
   */
  ask(
    input: AuthorizeInput,
    router: RouterAccess | undefined,
    forbidden?: () => Response,
  ): Promise<Response | null>;
  /**
   * The re-check of a stream of `runId` opened by `request`, or `undefined` when only
   * `'public'` applies (nothing to re-ask) or the interval is `0` / `Infinity` (re-checks off).
   */
  reauthorization(
    request: Request,
    runId: string,
    router: RouterAccess | undefined,
  ): StreamReauthorization | undefined;
}

/**
 * The gate of one set of handlers: their own policy (`undefined`: only a router's), their
 * re-ask interval and where errors go.
 */
export function createAccessGate(options: {
  own: RunAccessPolicy | undefined;
  reauthorizeMs: number | undefined;
  onError: (error: unknown) => void;
  /** Names the handlers in the one warning a request with no policy at all produces. */
  where: string;
}): AccessGate {
  const { own, onError } = options;
  let warned = false;

  /** The functions to ask, in order; `null` when no policy applies at all. */
  const policiesFor = (router: RouterAccess | undefined): Authorize[] | null => {
    // Only a policy counts: anything else a router (of another version) passed is no policy.
    const routed = isAccessPolicy(router?.authorize) ? router.authorize : undefined;
    if (routed === undefined && own === undefined) return null;
    return [routed, own].filter((policy): policy is Authorize => typeof policy === 'function');
  };

  const ask = async (
    input: AuthorizeInput,
    router: RouterAccess | undefined,
    forbidden?: () => Response,
  ): Promise<Response | null> => {
    const policies = policiesFor(router);
    if (policies === null) {
      if (!warned) {
        warned = true;
        console.warn(
          `[runlight] ${options.where} answered 403: no access policy. Mount them behind ` +
            "createRunRouter({ authorize }), or give them `authorize` (or 'public' on purpose).",
        );
      }
      return jsonError(403, 'forbidden', 'No access policy is configured for this route');
    }
    for (const authorize of policies) {
      let verdict: boolean | Response;
      try {
        verdict = await authorize(input);
      } catch (error) {
        onError(error);
        return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
      }
      if (verdict instanceof Response) return verdict;
      if (verdict !== true) {
        if (forbidden) return forbidden();
        return jsonError(403, 'forbidden', `Not allowed to ${input.action} run ${input.runId}`);
      }
    }
    return null;
  };

  return {
    ask,
    reauthorization(request, runId, router) {
      if ((policiesFor(router) ?? []).length === 0) return undefined;
      const everyMs = router?.reauthorizeMs ?? options.reauthorizeMs ?? DEFAULT_REAUTHORIZE_MS;
      if (!(everyMs > 0) || !Number.isFinite(everyMs)) return undefined;
      return {
        everyMs,
        async check() {
          const refused = await ask({ request, runId, action: 'read' }, router);
          return refused === null ? null : refusalOf(refused);
        },
      };
    },
  };
}
