import { RunlightError } from './runlight-error';

export class RunNotFoundError extends RunlightError {
  readonly kind = 'run-not-found';
  override readonly name = 'RunNotFoundError';

  constructor(readonly runId: string) {
    super(`Run ${runId} does not exist`);
  }

  static isInstance(error: unknown): error is RunNotFoundError {
    return RunlightError.hasKind(error, 'run-not-found');
  }
}
