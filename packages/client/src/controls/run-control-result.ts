import { RunlightClientError } from '../errors/runlight-client-error';

/**
 * How a control request (cancel, approval answers) ended, as a value a button can show:
 * `{ ok: true }` once the server recorded it (`202`), else the typed error — a refusal
 * (`http` with the server's `code`, e.g. `run_ended`), `unauthorized`, `run-not-found`,
 * `timeout`, `network` or `invalid-request`.
 */
export type RunControlResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: RunlightClientError };

const OK: RunControlResult = Object.freeze({ ok: true });

/**
 * Runs a control request and resolves to its `RunControlResult` — never rejects, so the
 * documented `void cancel()` in an event handler leaves no unhandled rejection behind. A
 * failure that is not already a `RunlightClientError` (a transport that threw something else)
 * is wrapped as `network`.
 *
 * @example
 * const result = await settleRunControl(() => client.cancel(runId));
 * if (!result.ok && result.error.code === 'run_ended') showEnded();
 */
export async function settleRunControl(request: () => Promise<void>): Promise<RunControlResult> {
  try {
    await request();
    return OK;
  } catch (error) {
    return { ok: false, error: typedControlError(error) };
  }
}

/**
 * A control request's failure as the client's typed error.
 *
 * @example
 * typedControlError(new TypeError('Failed to fetch')).kind; // 'network'
 */
export function typedControlError(error: unknown): RunlightClientError {
  if (RunlightClientError.isInstance(error)) return error;
  return new RunlightClientError(
    'network',
    error instanceof Error ? error.message : String(error),
    { cause: error },
  );
}
