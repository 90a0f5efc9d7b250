import { expect, it } from 'vitest';
import type { ConformanceContext } from './conformance-context';

const message = (id: string, role: 'user' | 'assistant', text: string) => ({
  id,
  role,
  parts: [{ type: 'text' as const, text }],
});

/**
 * Run inputs (the conversation each run was started with): stored once, read back validated,
 * listed per chat newest first, bounded.
 */
export function describeRunInputConformance(ctx: ConformanceContext): void {
  const inputs = () => {
    const runInputs = ctx.store.runInputs;
    if (!runInputs) throw new Error('This driver stores no run inputs');
    return runInputs;
  };

  it('stores a run input once and reads it back as stored', async () => {
    const id = ctx.runId();
    const chatId = `chat-${id}`;
    const messages = [message('m1', 'user', 'Hi — ünïcode \u2028 ok')];
    expect(await inputs().save({ runId: id, chatId, messages })).toBe(true);
    expect(await inputs().save({ runId: id, chatId, messages: [message('m2', 'user', 'x')] })).toBe(
      false,
    );
    expect(await inputs().get(id)).toEqual({
      runId: id,
      chatId,
      messages,
      createdAt: expect.any(String),
    });
    expect(await inputs().get(ctx.runId())).toBeNull();
  });

  it('lists the runs of a chat newest first, at most the limit asked, and no other chat’s', async () => {
    const chatId = `chat-${ctx.runId()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = ctx.runId();
      ids.push(id);
      await inputs().save({ runId: id, chatId, messages: [message(`m${i}`, 'user', `${i}`)] });
      ctx.clock.advance(1_000);
    }
    await inputs().save({ runId: ctx.runId(), chatId: `${chatId}-other`, messages: [] });
    await inputs().save({ runId: ctx.runId(), chatId: null, messages: [] });
    const listed = await inputs().listChatRuns(chatId);
    expect(listed.map((run) => run.runId)).toEqual([...ids].reverse());
    expect(Date.parse(listed[0]!.createdAt)).toBeGreaterThan(Date.parse(listed[2]!.createdAt));
    expect((await inputs().listChatRuns(chatId, { limit: 2 })).map((run) => run.runId)).toEqual([
      ids[2],
      ids[1],
    ]);
    expect(await inputs().listChatRuns(`${chatId}-none`)).toEqual([]);
  });

  it('refuses an input past its bounds or of invalid messages, and stores nothing', async () => {
    const id = ctx.runId();
    const many = Array.from({ length: 501 }, (_, i) => message(`m${i}`, 'user', 'x'));
    await expect(inputs().save({ runId: id, chatId: null, messages: many })).rejects.toThrow(
      TypeError,
    );
    const huge = [message('m1', 'user', 'x'.repeat(1024 * 1024 + 1))];
    await expect(inputs().save({ runId: id, chatId: null, messages: huge })).rejects.toThrow(
      /bytes/,
    );
    const invalid = [{ id: '', role: 'robot', parts: [] }] as never;
    await expect(inputs().save({ runId: id, chatId: null, messages: invalid })).rejects.toThrow(
      TypeError,
    );
    expect(await inputs().get(id)).toBeNull();
  });
}
