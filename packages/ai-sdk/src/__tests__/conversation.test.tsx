import { act, cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkpointed,
  closers,
  comparable,
  renderChat,
  setup,
  textOf,
  waitFor,
  words,
} from './chat-fixtures';

afterEach(async () => {
  cleanup();
  await Promise.all(closers.splice(0).map((close) => close()));
});

const shape = (messages: { role: string }[]) => messages.map((message) => message.role);

describe('the conversation is durable: restored from the server alone', () => {
  it('after the run ended: another device restores user and assistant messages and continues the chat', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 10, tokenMs: 1, text: 'First answer.' }],
      route: '/chat',
    });
    const first = page();
    const view = renderChat(first.transport, { id: 'chat-durable' });
    await act(() => view.chat().sendMessage({ text: 'Hello' }));
    await waitFor(() => expect(view.chat().status).toBe('ready'));
    const runId = first.started[0]!;
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('completed'));
    first.closeTab();
    view.unmount();

    // No shared storage: only the chat id (e.g. in the URL) and the server.
    const device = page({ device: true });
    const loaded = await device.transport.loadChat('chat-durable');
    expect(loaded.runId).toBe(runId);
    expect(shape(loaded.messages)).toEqual(['user', 'assistant']);
    expect(textOf(loaded.messages[0])).toBe('Hello');
    expect(comparable(loaded.messages[1])).toEqual(comparable(await checkpointed(server, runId)));
    expect(device.transport.getRunId('chat-durable')).toBe(runId);

    const restored = renderChat(device.transport, {
      id: 'chat-durable',
      messages: loaded.messages,
      resume: true,
    });
    await waitFor(() => expect(restored.chat().status).toBe('ready'));
    expect(restored.chat().messages).toEqual(loaded.messages);
    await act(() => restored.chat().sendMessage({ text: 'And again' }));
    await waitFor(() => expect(restored.chat().status).toBe('ready'));
    const second = device.started[0]!;
    expect(second).not.toBe(runId);
    await waitFor(async () => expect((await server.store.getRun(second)).status).toBe('completed'));

    const later = await page({ device: true }).transport.loadChat('chat-durable');
    expect(later.runId).toBe(second);
    expect(shape(later.messages)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(
      (await server.store.runInputs!.listChatRuns('chat-durable')).map((r) => r.runId),
    ).toEqual([second, runId]);
  });

  it('mid-answer in a second browser context: it restores the user’s message and follows the run live to its end', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 8, text: words }],
      route: '/chat',
    });
    const first = page();
    const view = renderChat(first.transport, { id: 'chat-second' });
    act(() => void view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(view.chat().messages[1]).length).toBeGreaterThan(10));

    const other = page({ device: true });
    const loaded = await other.transport.loadChat('chat-second');
    const runId = first.started[0]!;
    expect(loaded.runId).toBe(runId);
    expect(shape(loaded.messages)).toEqual(['user']); // the answer is replayed by the resume
    const follower = renderChat(other.transport, {
      id: 'chat-second',
      messages: loaded.messages,
      resume: true,
    });
    await waitFor(() => expect(textOf(follower.chat().messages[1])).toBe(words));
    await waitFor(() => expect(follower.chat().status).toBe('ready'));
    expect(shape(follower.chat().messages)).toEqual(['user', 'assistant']);
    expect(comparable(follower.chat().messages[1])).toEqual(
      comparable(await checkpointed(server, runId)),
    );
    for (const text of follower.texts) expect(words.startsWith(text)).toBe(true);
    expect(server.controlCalls).toEqual([]);
  });
});
