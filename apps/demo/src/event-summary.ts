import type { WireEntry } from './wire-log';

/**
 * One line for an entry of the raw event log. A `run-status` event whose change is its status
 * (`completed`, `failed`, `cancelled`) reads once — `completed`, not `completed → completed` —
 * and a failure names its code.
 *
 * @example
 * summariseEvent({ event: 'run-status', data: '{"type":"run-status","change":"acquired","status":"running","owner":"worker-a"}' });
 * // 'acquired → running (worker-a)'
 */
export function summariseEvent(entry: Pick<WireEntry, 'event' | 'data'>): string {
  if (entry.event === 'client') return entry.data;
  try {
    const event = JSON.parse(entry.data) as Record<string, unknown> & {
      chunk?: Record<string, unknown>;
      operation?: Record<string, unknown>;
      failure?: { code?: unknown } | null;
    };
    switch (event.type) {
      case 'run-delta': {
        const chunk = event.chunk ?? {};
        const text = chunk.delta ?? chunk.inputTextDelta;
        return `${String(chunk.type)}${typeof text === 'string' ? ` ${JSON.stringify(text)}` : ''}`;
      }
      case 'run-operation':
        return `${String(event.operation?.kind)} ${String(event.operation?.phase)}`;
      case 'run-status': {
        const change = String(event.change);
        const status = String(event.status);
        const what = change === status ? status : `${change} → ${status}`;
        const failure = event.failure?.code === undefined ? '' : `: ${String(event.failure.code)}`;
        const owner = event.owner ? ` (${String(event.owner)})` : '';
        return `${what}${failure}${owner}`;
      }
      case 'assistant-checkpoint':
        return 'assistant message checkpointed';
      case 'assistant-append':
        return `assistant +${Array.isArray(event.chunks) ? event.chunks.length : 0} chunk(s)`;
      default:
        return entry.data.slice(0, 120);
    }
  } catch {
    return entry.data.slice(0, 120);
  }
}
