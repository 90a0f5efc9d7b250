import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import type { AssistantAppend } from '../../store/log/reducer';
import { CheckpointWriter } from '../checkpoints/checkpoint-writer';
import type { ExecutionContext } from '../execution-context';

/** A writer over a fake owned run whose writes wait for `release`. */
function writerWithGate() {
  const writes: Array<{ append?: AssistantAppend; message?: UIMessage }> = [];
  let revision = 2;
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const hold = () => {
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  const written = async () => {
    await gate;
    return { revision: ++revision };
  };
  const context = {
    deps: { checkpointEveryEvents: 32, checkpointMinGrowth: undefined },
    owned: {
      appendAssistant: async (append: AssistantAppend) => {
        writes.push({ append: structuredClone(append) });
        return written();
      },
      saveAssistantCheckpoint: async (message: UIMessage) => {
        writes.push({ message });
        return written();
      },
      renewLease: written,
    },
    stop: {
      writesBroken: false,
      onWriteError: (error: unknown) => {
        throw error;
      },
    },
    lastWriteAt: 0,
  } as unknown as ExecutionContext;
  const empty: UIMessage = { id: 'm', role: 'assistant', parts: [] };
  return {
    writer: new CheckpointWriter(context, empty, 0),
    writes,
    hold,
    release: () => release(),
  };
}

const delta = (text: string): UIMessageChunk => ({ type: 'text-delta', id: 't', delta: text });

describe('CheckpointWriter', () => {
  it('appends the compacted batch extending the last write, then continues from its revision', async () => {
    const { writer, writes } = writerWithGate();
    writer.append({ type: 'text-start', id: 't' });
    writer.append(delta('Hel'));
    writer.append(delta('lo'));
    await writer.checkpoint('always');
    expect(writer.append(delta('!'))).toEqual({ baseRevision: 3, seq: 1 });
    await writer.checkpoint('always');
    expect(writes.map((write) => write.append)).toEqual([
      {
        messageId: 'm',
        baseRevision: 0,
        chunks: [{ type: 'text-start', id: 't' }, delta('Hello')],
      },
      { messageId: 'm', baseRevision: 3, chunks: [delta('!')] },
    ]);
  });

  it('keeps a chunk appended while a write is in flight for the next write, never twice', async () => {
    const { writer, writes, hold, release } = writerWithGate();
    writer.append({ type: 'text-start', id: 't' });
    writer.append(delta('a'));
    hold();
    const first = writer.checkpoint('always'); // e.g. the lease heartbeat
    await Promise.resolve();
    writer.append(delta('b')); // published while the write is in flight
    release();
    await first;
    await writer.checkpoint('if-changed'); // the end of the execution
    expect(writes.map((write) => write.append?.chunks)).toEqual([
      [{ type: 'text-start', id: 't' }, delta('a')],
      [delta('b')],
    ]);
  });

  it('renews the lease when nothing is pending', async () => {
    const { writer, writes } = writerWithGate();
    await writer.checkpoint('always');
    expect(writes).toEqual([]);
  });
});
