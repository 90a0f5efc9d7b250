import type { UIMessageChunk } from '@runlight/protocol';

type DeltaChunk = Extract<UIMessageChunk, { type: 'text-delta' | 'reasoning-delta' }>;
type ToolInputDelta = Extract<UIMessageChunk, { type: 'tool-input-delta' }>;

/** A delta of the plain shape (no provider metadata or other fields), safe to merge. */
function plainDelta(chunk: UIMessageChunk): chunk is DeltaChunk {
  return (
    (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') &&
    Object.keys(chunk).length === 3
  );
}

function plainToolInputDelta(chunk: UIMessageChunk): chunk is ToolInputDelta {
  return chunk.type === 'tool-input-delta' && Object.keys(chunk).length === 3;
}

/**
 * The chunks with consecutive text, reasoning and tool-input deltas of one part merged into
 * one chunk each: what an append stores. A text-delta chunk is ~45 bytes of JSON for a few
 * characters, so a batch of 32 tokens shrinks to about its text. Applying the result gives the
 * same message as applying `chunks` (the SDK concatenates deltas, and parses tool input from
 * the whole text so far); deltas carrying more than their text are kept as they are.
 *
 * @example
 * compactChunks([{ type: 'text-delta', id: 't', delta: 'Hel' }, { type: 'text-delta', id: 't', delta: 'lo' }]);
 * // → [{ type: 'text-delta', id: 't', delta: 'Hello' }]
 */
export function compactChunks(chunks: readonly UIMessageChunk[]): UIMessageChunk[] {
  const out: UIMessageChunk[] = [];
  for (const chunk of chunks) {
    const last = out.at(-1);
    if (last !== undefined && plainDelta(chunk) && plainDelta(last)) {
      if (last.type === chunk.type && last.id === chunk.id) {
        out[out.length - 1] = { type: chunk.type, id: chunk.id, delta: last.delta + chunk.delta };
        continue;
      }
    } else if (last !== undefined && plainToolInputDelta(chunk) && plainToolInputDelta(last)) {
      if (last.toolCallId === chunk.toolCallId) {
        out[out.length - 1] = {
          type: 'tool-input-delta',
          toolCallId: chunk.toolCallId,
          inputTextDelta: last.inputTextDelta + chunk.inputTextDelta,
        };
        continue;
      }
    }
    out.push(chunk);
  }
  return out;
}
