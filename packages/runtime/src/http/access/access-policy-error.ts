import { RunlightError } from '../../errors/runlight-error';

/** Why a set of routes was not built: no policy, a value that is not one, or routes left open. */
export type AccessPolicyProblem = 'missing' | 'invalid' | 'uneven';

/**
 * Routes that would serve runs without a policy someone chose were not built
 * (`createRunRouter`, `createChatRoutes`, `createChatStartRoute`): no `authorize` was given
 * (`missing`), it is neither a function nor `'public'` (`invalid`), or a `'public'` router
 * mounts handlers of which some guard their routes and others do not (`uneven`: the
 * multiplexed and batched routes would serve the runs the per-run routes refuse).
 */
export class AccessPolicyError extends RunlightError {
  readonly kind = 'access-policy';
  override readonly name = 'AccessPolicyError';

  constructor(
    readonly problem: AccessPolicyProblem,
    message: string,
  ) {
    super(message);
  }

  static isInstance(error: unknown): error is AccessPolicyError {
    return RunlightError.hasKind(error, 'access-policy');
  }
}
