import { RunlightError } from './runlight-error';

/** An owned mutation named a revision the run no longer has: someone else wrote first. */
export class StoreConflictError extends RunlightError {
  readonly kind = 'store-conflict';
  override readonly name = 'StoreConflictError';

  constructor(
    readonly runId: string,
    readonly expectedRevision: number,
    readonly actualRevision: number,
  ) {
    super(
      `Run ${runId}: expected revision ${expectedRevision}, but the store holds ${actualRevision}`,
    );
  }

  static isInstance(error: unknown): error is StoreConflictError {
    return RunlightError.hasKind(error, 'store-conflict');
  }
}
