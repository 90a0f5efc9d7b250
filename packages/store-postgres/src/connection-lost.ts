/**
 * Whether `error` says the connection under a statement was lost, rather than anything about
 * the statement itself: the server ended the backend (`pg_terminate_backend`, a restart, a
 * failover: SQLSTATE class 57P / 08), or the socket closed under node-postgres.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code === '57P01' || code === '57P02' || code === '57P03') return true;
    if (code.startsWith('08')) return true;
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNREFUSED') return true;
  }
  return (
    typeof message === 'string' &&
    (message.includes('Connection terminated') || message.includes('connection timeout'))
  );
}

/**
 * A statement that only reads: safe to run again when its connection was lost before it
 * answered (it changes nothing, so a second run cannot apply anything twice). A statement that
 * writes — or notifies — is never repeated: its first run may have committed.
 */
export function isReadOnlyStatement(text: string): boolean {
  const head = text.trimStart().slice(0, 7).toUpperCase();
  return (
    head.startsWith('SELECT') && !/\bpg_notify\s*\(/i.test(text) && !/\bFOR\s+UPDATE\b/i.test(text)
  );
}
