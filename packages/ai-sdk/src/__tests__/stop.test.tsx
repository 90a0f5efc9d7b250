import { act, cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointed, closers, renderChat, setup, textOf, waitFor, words } from './chat-fixtures';

afterEach(async () => {
  cleanup();
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('stop() always stops the run', () => {
  it('after a reload: stop on the resumed chat cancels the run; its model request is recorded cancelled', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 15, text: words }],
      route: '/chat',
    });
    const first = page();
    const before = renderChat(first.transport, { id: 'chat-reload-stop' });
    act(() => void before.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(before.chat().messages[1]).length).toBeGreaterThan(5));
    const userMessage = before.chat().messages[0]!;
    first.closeTab();
    before.unmount();

    const second = page();
    const runId = second.transport.getRunId('chat-reload-stop')!;
    const after = renderChat(second.transport, {
      id: 'chat-reload-stop',
      messages: [userMessage],
      resume: true,
    });
    await waitFor(() => expect(after.chat().status).toBe('streaming'));
    await waitFor(() => expect(textOf(after.chat().messages[1]).length).toBeGreaterThan(20));
    await act(() => after.chat().stop());
    await waitFor(() => expect(after.chat().status).toBe('ready'));

    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('cancelled'));
    const run = await server.store.getRun(runId);
    expect(run.lastOperation).toMatchObject({ kind: 'model-request', phase: 'cancelled' });
    expect(server.controlCalls).toEqual([{ runId, action: 'cancel' }]);
    const stored = textOf(await checkpointed(server, runId));
    expect(stored.length).toBeLessThan(words.length);
    expect(stored.startsWith(textOf(after.chat().messages[1]))).toBe(true);
  });

  it('during the start request: the run is cancelled as soon as its id is known, nothing runs unseen', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 15, text: words }],
      route: '/chat',
      startDelayMs: 150,
    });
    const { transport, started } = page();
    const view = renderChat(transport, { id: 'chat-stop-start' });
    act(() => void view.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(view.chat().status).toBe('submitted'));
    await act(() => view.chat().stop());
    expect(view.chat().status).toBe('ready');

    await waitFor(() => expect(started).toHaveLength(1));
    const runId = started[0]!;
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('cancelled'));
    expect(server.controlCalls).toEqual([{ runId, action: 'cancel' }]);
    const operation = (await server.store.getRun(runId)).lastOperation;
    // Cancelled before or during its model request, never a completed one.
    if (operation !== null) expect(operation.phase).toBe('cancelled');
    expect(textOf(await checkpointed(server, runId)).length).toBeLessThan(words.length);
  });

  it('React StrictMode’s mount–stop–mount does not cancel a resumed run', async () => {
    const { server, page } = await setup({
      script: () => [{ firstTokenMs: 30, tokenMs: 5, text: words }],
      route: '/chat',
    });
    const first = page();
    const before = renderChat(first.transport, { id: 'chat-strict' });
    act(() => void before.chat().sendMessage({ text: 'Count to forty' }));
    await waitFor(() => expect(textOf(before.chat().messages[1]).length).toBeGreaterThan(5));
    const userMessage = before.chat().messages[0]!;
    first.closeTab();
    before.unmount();

    const second = page();
    const runId = second.transport.getRunId('chat-strict')!;
    const after = renderChat(
      second.transport,
      { id: 'chat-strict', messages: [userMessage], resume: true },
      { strict: true },
    );
    await waitFor(async () => expect((await server.store.getRun(runId)).status).toBe('completed'));
    await waitFor(() => expect(textOf(after.chat().messages[1])).toBe(words));
    expect(server.controlCalls).toEqual([]);
  });
});
