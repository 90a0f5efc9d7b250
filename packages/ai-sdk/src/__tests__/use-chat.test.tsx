import { act, cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunlightChatTransport } from '../create-runlight-chat-transport';
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
import { serveChat } from './chat-server';

afterEach(async () => {
  cleanup();
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('useChat on the Runlight transport, over loopback HTTP against the real runtime', () => {
  it('send and stream: the chat ends with the run checkpointed message, text growing without duplicates, the run id on the page', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 3, text: words }],
    });
    const { transport, started } = page();
    const view = renderChat(transport, { id: 'chat-send' });
    act(() => void view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(view.chat().messages[1])).toBe(words));
    await waitFor(() => expect(view.chat().status).toBe('ready'));

    const runId = started[0]!;
    expect(transport.getRunId('chat-send')).toBe(runId);
    expect((await server.store.getRun(runId)).status).toBe('completed');
    const messages = view.chat().messages;
    expect(messages).toHaveLength(2);
    expect(messages[1]!.metadata).toEqual({ runId });
    expect(comparable(messages[1])).toEqual(comparable(await checkpointed(server, runId)));
    expect(textOf(messages[1])).toBe(words);
    for (const text of view.texts) expect(words.startsWith(text)).toBe(true);
    expect(new Set(view.texts).size).toBeGreaterThan(2); // it streamed, not one final render
  });

  it('drop the connection mid-answer: the store resumes by cursor, no duplicated or missing text', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 4, text: words }],
      drops: 3,
      dropEventsAfterWrites: 5,
    });
    const { transport, started } = page();
    const view = renderChat(transport, { id: 'chat-drop' });
    await act(() => view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(view.chat().status).toBe('ready'));

    expect(server.stats().dropped).toBe(3);
    const runId = started[0]!;
    const message = view.chat().messages[1];
    expect(comparable(message)).toEqual(comparable(await checkpointed(server, runId)));
    expect(textOf(message)).toBe(words);
    for (const text of view.texts) expect(words.startsWith(text)).toBe(true);
  });

  it('reload mid-answer: a new useChat with the same chat id resumes the run; its messages are the run checkpointed messages', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 8, text: words }],
    });
    const first = page();
    const before = renderChat(first.transport, { id: 'chat-reload' });
    act(() => void before.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(before.chat().messages[1]).length).toBeGreaterThan(30));
    const userMessage = before.chat().messages[0]!;
    // The tab reloads: its requests end, its memory is gone, the tab storage stays.
    first.closeTab();
    before.unmount();

    const second = page();
    const runId = second.transport.getRunId('chat-reload');
    expect(runId).toBe(first.started[0]);
    const after = renderChat(second.transport, {
      id: 'chat-reload',
      messages: [userMessage],
      resume: true,
    });
    await waitFor(async () => expect((await server.store.getRun(runId!)).status).toBe('completed'));
    await waitFor(() => expect(textOf(after.chat().messages[1])).toBe(words));
    await waitFor(() => expect(after.chat().status).toBe('ready'));
    const messages = after.chat().messages;
    expect(messages).toHaveLength(2);
    expect(comparable(messages[1])).toEqual(comparable(await checkpointed(server, runId!)));
    expect(second.started).toEqual([runId]);
    expect(server.controlCalls).toEqual([]); // the closed tab cancelled nothing
    for (const text of after.texts) expect(words.startsWith(text)).toBe(true);

    // A reload after the run ended: nothing to resume (204-like null), the message loads.
    const third = page();
    expect(await third.transport.reconnectToStream({ chatId: 'chat-reload' })).toBeNull();
    expect(comparable(await third.transport.loadRunMessage(runId!))).toEqual(
      comparable(messages[1]),
    );
  });

  it('stop: cancels the run on the server; the chat keeps a prefix of the checkpointed answer', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 15, text: words }],
    });
    const { transport, started } = page();
    const view = renderChat(transport, { id: 'chat-stop' });
    act(() => void view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(view.chat().messages[1]).length).toBeGreaterThan(10));
    await act(() => view.chat().stop());
    await waitFor(() => expect(view.chat().status).toBe('ready'));

    const runId = started[0]!;
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('cancelled'));
    expect(server.controlCalls).toEqual([{ runId, action: 'cancel' }]);
    const shown = textOf(view.chat().messages[1]);
    const stored = textOf(await checkpointed(server, runId));
    expect(stored.startsWith(shown)).toBe(true);
    expect(stored.length).toBeLessThan(words.length);
    // After a reload the chat shows exactly the checkpointed message.
    const reloaded = page();
    expect(await reloaded.transport.reconnectToStream({ chatId: 'chat-stop' })).toBeNull();
    expect(comparable(await reloaded.transport.loadRunMessage(runId))).toEqual(
      comparable(await checkpointed(server, runId)),
    );
  });

  it('behind authorize: the transport’s headers go with every request — start, event stream, cancel', async () => {
    const server = await serveChat({
      script: () => [{ firstTokenMs: 30, tokenMs: 15, text: words }],
      token: 'secret',
    });
    closers.push(server.close);
    const asked: string[] = [];
    const started: string[] = [];
    // No client of its own: the transport's client reads the run with the same headers.
    const transport = createRunlightChatTransport({
      baseUrl: server.baseUrl,
      start: `${server.baseUrl}/runs`,
      headers: async () => {
        asked.push('headers');
        return { authorization: 'Bearer secret' };
      },
      onRunStarted: ({ runId }) => started.push(runId),
    });
    const view = renderChat(transport, { id: 'chat-authorized' });
    act(() => void view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(view.chat().messages[1]).length).toBeGreaterThan(10));
    await act(() => view.chat().stop());
    const runId = started[0]!;
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('cancelled'));
    expect(server.controlCalls).toEqual([{ runId, action: 'cancel' }]);
    // Asked again before each request (a refreshed token would be picked up).
    expect(asked.length).toBeGreaterThanOrEqual(3);
    expect(view.chat().error).toBeUndefined();
  });

  it('approve: addToolApprovalResponse reaches the approvals route, the run resumes, the chat ends with the checkpointed message', async () => {
    const { server, page } = await setup({
      script: () => [
        {
          firstTokenMs: 20,
          tokenMs: 2,
          text: 'Paying now. ',
          toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
        },
        { firstTokenMs: 20, tokenMs: 2, text: 'Paid five.' },
      ],
    });
    const { transport, started } = page();
    const view = renderChat(transport, { id: 'chat-approve' });
    await act(() => view.chat().sendMessage({ text: 'Pay 5' }));
    await waitFor(() => expect(view.chat().status).toBe('ready'));
    const runId = started[0]!;
    const asking = view.chat().messages[1]!;
    const toolPart = asking.parts.find((part) => part.type === 'tool-pay') as
      | { state: string; approval?: { id: string } }
      | undefined;
    expect(toolPart?.state).toBe('approval-requested');
    expect(comparable(asking)).toEqual(comparable(await checkpointed(server, runId)));

    await act(async () => {
      await view.chat().addToolApprovalResponse({ id: toolPart!.approval!.id, approved: true });
    });
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('completed'));
    await waitFor(() => expect(view.chat().status).toBe('ready'));
    await waitFor(() => expect(textOf(view.chat().messages[1])).toBe('Paying now. Paid five.'));

    expect(server.controlCalls).toEqual([{ runId, action: 'approve' }]);
    expect(server.approvals).toEqual([[{ approvalId: toolPart!.approval!.id, approved: true }]]);
    const messages = view.chat().messages;
    expect(messages).toHaveLength(2);
    expect(started).toEqual([runId]); // the same run continued, no second start
    expect(comparable(messages[1])).toEqual(comparable(await checkpointed(server, runId)));
  });
});
