import { RunlightClientError } from '../../errors/runlight-client-error';

/* What a failed attempt of the connection loop says about the server, by its typed error. */

/** 401 / 403: wait for `retry()` with new credentials. */
export function isUnauthorized(error: unknown): boolean {
  return RunlightClientError.isInstance(error) && error.kind === 'unauthorized';
}

/** 404 for the run: an answer (it is not there, or not yet). */
export function isNotFound(error: unknown): boolean {
  return RunlightClientError.isInstance(error) && error.kind === 'run-not-found';
}

/** A failure that says nothing came back from the server: the network, a timeout, a gateway. */
export function notReached(error: unknown): boolean {
  if (!RunlightClientError.isInstance(error)) return true;
  if (error.kind === 'network' || error.kind === 'timeout') return true;
  return (
    error.kind === 'http' && (error.status === 502 || error.status === 503 || error.status === 504)
  );
}
