import type { UIMessageChunk } from 'ai';

/**
 * Default `checkpointEveryEvents`: an ordinary chunk batch of 32 bounds what a crash can lose
 * (about a sentence of text) and the live deltas a reconnect replays from memory, while a
 * 2,000-delta answer writes ~63 growing checkpoints instead of 2,000. Structural boundaries
 * checkpoint on their own, whatever the cadence.
 */
export const DEFAULT_CHECKPOINT_EVERY_EVENTS = 32;

/**
 * True for the UI chunks of a structural boundary (ADR 0174): a tool call (complete or
 * invalid), a tool result, error or denial, an approval request or response, and a step
 * finish. Each forces an awaited checkpoint and resets the batch counter.
 *
 * @example
 * isStructuralChunk({ type: 'finish-step' }); // true
 * isStructuralChunk({ type: 'text-delta', id: 't', delta: 'Hi' }); // false
 */
export function isStructuralChunk(chunk: UIMessageChunk): boolean {
  switch (chunk.type) {
    case 'tool-input-available':
    case 'tool-input-error':
    case 'tool-output-available':
    case 'tool-output-error':
    case 'tool-output-denied':
    case 'tool-approval-request':
    case 'tool-approval-response':
    case 'finish-step':
      return true;
    default:
      return false;
  }
}
