/**
 * An AG-UI interrupt id names the Runlight run and the AI SDK approval it stands for:
 * `<runId>/<approvalId>`. A run id never holds a `/` (`RunIdSchema`), so the first `/` splits
 * them; a `RunAgentInput.resume` entry therefore names the run it answers without any other
 * field — a stock `HttpAgent` posting to the one start route can answer it.
 *
 * @example
 * interruptIdOf('run-1', 'approval-7'); // 'run-1/approval-7'
 */
export function interruptIdOf(runId: string, approvalId: string): string {
  return `${runId}/${approvalId}`;
}

/**
 * The run and approval an interrupt id names, or `null` for an id this adapter never made.
 *
 * @example
 * parseInterruptId('run-1/approval-7'); // { runId: 'run-1', approvalId: 'approval-7' }
 */
export function parseInterruptId(id: string): { runId: string; approvalId: string } | null {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return null;
  return { runId: id.slice(0, slash), approvalId: id.slice(slash + 1) };
}
