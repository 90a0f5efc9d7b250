import { RunlightError } from './runlight-error';

export type FencingReason = 'owner-mismatch' | 'stale-fencing-token' | 'lease-held';

/**
 * The caller does not hold the run: another owner acquired it (its writes now fail and store
 * nothing), or, for `lease-held`, another owner's lease has not expired yet.
 */
export class FencingError extends RunlightError {
  readonly kind = 'fencing';
  override readonly name = 'FencingError';

  constructor(
    readonly runId: string,
    readonly reason: FencingReason,
    readonly details: {
      owner: string;
      fencingToken?: number;
      currentOwner: string | null;
      currentFencingToken: number;
    },
  ) {
    super(
      reason === 'lease-held'
        ? `Run ${runId} is leased by another owner until its lease expires`
        : `Run ${runId}: ${details.owner} with fencing token ${details.fencingToken} no longer holds the run (token ${details.currentFencingToken})`,
    );
  }

  static isInstance(error: unknown): error is FencingError {
    return RunlightError.hasKind(error, 'fencing');
  }
}
