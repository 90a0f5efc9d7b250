import { RunlightError } from './runlight-error';

/**
 * The runtime is closing or closed (`runtime.close()`): it takes no new run, resume or
 * takeover. The HTTP start route answers it `503` with code `runtime_closed`; a client retries
 * against another instance.
 */
export class RuntimeClosedError extends RunlightError {
  readonly kind = 'runtime-closed';
  override readonly name = 'RuntimeClosedError';

  constructor(readonly runId: string) {
    super(`Run ${runId}: the runtime is closed and takes no new executions`);
  }

  static isInstance(error: unknown): error is RuntimeClosedError {
    return RunlightError.hasKind(error, 'runtime-closed');
  }
}
