import { createRunlightClient } from '@runlight/client';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  inProcessFetch,
  loadChatConversation,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { describe, expect, it } from 'vitest';

describe('server rendering reads the store in process', () => {
  it('a client on inProcessFetch(router) loads a run’s public snapshot with no socket; loadChatConversation reads the chat', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({ store, owner: 'worker-secret-host-42' });
    const router = createRunRouter({
      handlers: createRunHandlers({ store, runtime }),
      basePath: '/api',
      authorize: 'public',
    });
    const messages = [
      { id: 'm1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'Hi' }] },
    ];
    const run = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello there.' }]),
      messages: [{ role: 'user', content: 'Hi' }],
      conversation: { chatId: 'chat-1', messages },
    }).done;
    expect(run.status).toBe('completed');

    const asked: string[] = [];
    const fetch = inProcessFetch((request) => {
      asked.push(new URL(request.url).pathname);
      return router(request);
    });
    const client = createRunlightClient({ baseUrl: '/api', fetch });
    const loaded = await client.fetchSnapshot('run-1');
    expect(loaded.snapshot.run.status).toBe('completed');
    expect(JSON.stringify(loaded.snapshot)).not.toContain('worker-secret-host-42'); // public form
    expect(asked).toEqual(['/api/runs/run-1']);
    expect((await fetch('/api/elsewhere')).status).toBe(404);

    const chat = await loadChatConversation(store, 'chat-1');
    expect(chat.runId).toBe('run-1');
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(chat.messages[1]).toMatchObject({ metadata: { runId: 'run-1' } });
  });
});
