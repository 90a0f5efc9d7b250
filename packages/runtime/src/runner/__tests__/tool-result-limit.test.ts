import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_RESULT_TOO_LARGE_TEXT } from '../../errors/tool-result-too-large-error';
import { scriptedModel } from '../../testing/scripted-model';
import { oversizeOf } from '../tools/tool-result-limit';
import { harness, user } from './harness';

const KiB = 1024;

describe('maxToolResultBytes (issue 22 item 4)', () => {
  it('ends an oversized tool call as output-error with a fixed text the model sees too; the run goes on', async () => {
    const payload = 'secret-payload-'.repeat(20 * KiB); // ≈ 300 KiB
    const h = harness({ maxToolResultBytes: 64 * KiB, exposeToolErrors: true });
    const fetchAll = tool({ inputSchema: z.object({}), execute: async () => ({ payload }) });
    const small = tool({ inputSchema: z.object({}), execute: async () => ({ ok: true }) });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'fetchAll', input: {} },
          { toolName: 'small', input: {} },
        ],
      },
      { text: 'I could not read it.' },
    ]);
    const run = await h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('read everything'),
      tools: { fetchAll, small },
      stopWhen: isStepCount(3),
    }).done;

    expect(run.status).toBe('completed');
    const snapshot = await h.store.getSnapshot(h.runId);
    const parts = snapshot.assistant?.message.parts ?? [];
    const big = parts.find((part) => part.type === 'tool-fetchAll') as
      | { state: string; errorText?: string }
      | undefined;
    expect(big).toMatchObject({ state: 'output-error', errorText: TOOL_RESULT_TOO_LARGE_TEXT });
    expect(parts.find((part) => part.type === 'tool-small')).toMatchObject({
      state: 'output-available',
      output: { ok: true },
    });
    // The model's next step got the same fixed text, not the payload.
    const prompt = JSON.stringify(
      (model as unknown as { doStreamCalls: { prompt: unknown }[] }).doStreamCalls[1]?.prompt,
    );
    expect(prompt).toContain(TOOL_RESULT_TOO_LARGE_TEXT);
    expect(prompt).not.toContain('secret-payload-');
    // Nothing stored or published holds any of it.
    expect(JSON.stringify(await h.store.readEvents(h.runId))).not.toContain('secret-payload-');
    expect(JSON.stringify(h.events)).not.toContain('secret-payload-');
  });

  it('measures UTF-8 bytes of the JSON, exactly at the boundary', () => {
    expect(oversizeOf('a'.repeat(10), 12)).toBeNull(); // "aaaaaaaaaa" = 12 bytes
    expect(oversizeOf('a'.repeat(11), 12)).toBe(13);
    expect(oversizeOf('é'.repeat(5), 12)).toBeNull(); // 2 + 5 × 2 = 12 bytes
    expect(oversizeOf('é'.repeat(6), 12)).toBe(14);
    expect(oversizeOf(undefined, 1)).toBeNull();
  });
});
