import type { DurableRunEvent } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { compactChunks } from '../../assembly/compact-chunks';
import { StoreRecordError } from '../../errors/store-record-error';
import { materialiseAssistant } from '../log/materialise-assistant';
import { StoredRunSchema } from '../log/stored-run';

const at = '2026-12-02T10:00:00.000Z';
const append = (
  revision: number,
  baseRevision: number,
  chunks: Extract<DurableRunEvent, { type: 'assistant-append' }>['chunks'],
): DurableRunEvent => ({
  type: 'assistant-append',
  runId: 'run-1',
  revision,
  at,
  messageId: 'm',
  baseRevision,
  chunks,
});

describe('materialiseAssistant', () => {
  it('ends at a chunk the SDK refuses instead of hanging', async () => {
    const events = [
      append(3, 0, [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'ok' },
      ]),
      append(4, 3, [{ type: 'tool-output-available', toolCallId: 'unknown', output: 1 }]),
    ];
    const pointer = { messageId: 'm', revision: 4, consolidatedRevision: 0 };
    const { message } = await materialiseAssistant('run-1', pointer, events);
    expect(message.parts).toEqual([expect.objectContaining({ type: 'text', text: 'ok' })]);
  });

  it('refuses a broken chain of appends as a corrupt store', async () => {
    const events = [
      append(3, 0, [{ type: 'text-start', id: 't' }]),
      append(5, 4, [{ type: 'text-end', id: 't' }]),
    ];
    const pointer = { messageId: 'm', revision: 5, consolidatedRevision: 0 };
    await expect(materialiseAssistant('run-1', pointer, events)).rejects.toSatisfy(
      StoreRecordError.isInstance,
    );
  });
});

describe('compactChunks', () => {
  it('merges runs of plain deltas of one part, keeps everything else in order', () => {
    expect(
      compactChunks([
        { type: 'text-delta', id: 't', delta: 'a' },
        { type: 'text-delta', id: 't', delta: 'b' },
        { type: 'reasoning-delta', id: 'r', delta: 'x' },
        { type: 'text-delta', id: 't', delta: 'c', providerMetadata: { p: { k: 1 } } },
        { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"q"' },
        { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: ':1}' },
      ]),
    ).toEqual([
      { type: 'text-delta', id: 't', delta: 'ab' },
      { type: 'reasoning-delta', id: 'r', delta: 'x' },
      { type: 'text-delta', id: 't', delta: 'c', providerMetadata: { p: { k: 1 } } },
      { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"q":1}' },
    ]);
  });
});

describe('StoredRunSchema', () => {
  it('upgrades a record holding a whole assistant checkpoint to a pointer', () => {
    const run = {
      id: 'run-1',
      status: 'running',
      owner: 'a',
      fencingToken: 1,
      revision: 4,
      lastOperation: null,
      failure: null,
      leaseExpiresAt: null,
      createdAt: at,
      updatedAt: at,
    };
    const legacy = {
      run,
      assistant: { message: { id: 'm', role: 'assistant', parts: [] }, revision: 3 },
      lease: null,
      operations: { step: 0, ids: [] },
    };
    expect(StoredRunSchema.parse(legacy).assistant).toEqual({
      messageId: 'm',
      revision: 3,
      consolidatedRevision: 3,
    });
  });
});
