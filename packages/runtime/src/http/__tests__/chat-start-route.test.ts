import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createChatStartRoute } from '../chat/create-chat-start-route';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const userMessage = (id: string, text: string) => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** The real runtime; `/api/chat` is the one-line chat route, `/api/runs` the library's start. */
async function serve(answer = 'Hello there.') {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const errors: unknown[] = [];
  const runtime = createAgentRuntime({ store, onLog: (entry) => errors.push(entry) });
  const models: ReturnType<typeof scriptedModel>[] = [];
  const chat = createChatStartRoute({
    runtime,
    store,
    authorize: 'public',
    run: () => {
      const model = scriptedModel([{ text: answer, firstTokenMs: 20 }]);
      models.push(model);
      return { model };
    },
    onError: (error) => errors.push(error),
  });
  let fixedId = 'run-fixed';
  const router = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      // An app route that starts a chosen id: the case a stale 201 used to answer.
      start: () =>
        runtime.startRun({
          runId: fixedId,
          // Slow enough to still be executing at the second start, however busy the machine;
          // the test cancels it to reach the ended case.
          model: scriptedModel([{ text: 'x', firstTokenMs: 60_000 }]),
          messages: [{ role: 'user', content: 'Hi' }],
        }),
    }),
    basePath: '/api',
    authorize: 'public',
  });
  const server = await listen(
    toNodeListener(async (request) => {
      if (new URL(request.url).pathname === '/api/chat') return chat(request);
      return router(request);
    }),
  );
  cleanups.push(server.close);
  const post = (path: string, body: unknown) =>
    fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    store,
    runtime,
    models,
    errors,
    post,
    setFixedId: (id: string) => {
      fixedId = id;
    },
  };
}

describe('createChatStartRoute', () => {
  it('starts a run for useChat’s body and answers 201 { runId } once the run exists', async () => {
    const f = await serve();
    const response = await f.post('/api/chat', {
      chatId: 'chat-1',
      trigger: 'submit-message',
      requestId: 'req-1',
      messages: [userMessage('m1', 'Hi')],
    });
    expect(response.status).toBe(201);
    const { runId } = (await response.json()) as { runId: string };
    expect(runId).toMatch(/^chat-[0-9a-f]{40}$/);
    // It exists at once (no 404 for the client's first snapshot).
    expect((await f.store.getRun(runId)).id).toBe(runId);
    await expect.poll(async () => (await f.store.getRun(runId)).status).toBe('completed');
    const snapshot = await f.store.getSnapshot(runId);
    expect(snapshot.assistant?.message.parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'Hello there.' }),
    );
    // The model got the converted user message.
    expect(f.models[0]!.doStreamCalls[0]!.prompt).toContainEqual(
      expect.objectContaining({ role: 'user', content: [{ type: 'text', text: 'Hi' }] }),
    );
  });

  it('is idempotent: a retried POST (while running and after it ended) answers the same run, started once', async () => {
    const f = await serve();
    const body = {
      chatId: 'chat-1',
      trigger: 'submit-message',
      requestId: 'req-1',
      messages: [userMessage('m1', 'Hi')],
    };
    const [a, b] = await Promise.all([f.post('/api/chat', body), f.post('/api/chat', body)]);
    const ids = [(await a.json()).runId, (await b.json()).runId];
    expect(ids[0]).toBe(ids[1]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    await expect.poll(async () => (await f.store.getRun(ids[0])).status).toBe('completed');
    const late = await f.post('/api/chat', body);
    expect(late.status).toBe(200);
    expect((await late.json()).runId).toBe(ids[0]);
    const calls = f.models.reduce((sum, model) => sum + model.doStreamCalls.length, 0);
    expect(calls).toBe(1);
    // A new send of the same chat (a new request id) is a new run.
    const next = await f.post('/api/chat', { ...body, requestId: 'req-2' });
    expect(next.status).toBe(201);
    expect((await next.json()).runId).not.toBe(ids[0]);
    expect(f.errors).toEqual([]);
  });

  it('refuses bad input with a typed 400 and starts nothing', async () => {
    const f = await serve();
    const bad = [
      {},
      { chatId: 'c', trigger: 'submit-message', messages: [] },
      { chatId: 'c', trigger: 'nope', messages: [userMessage('m1', 'Hi')] },
      { chatId: 'c', trigger: 'submit-message', messages: [{ id: 'm1', role: 'user' }] },
      { chatId: 'c', trigger: 'submit-message', messages: [{ role: 'robot', parts: [] }] },
    ];
    for (const body of bad) {
      const response = await f.post('/api/chat', body);
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('bad_body');
    }
    expect(f.models).toHaveLength(0);
  });
});

describe('the start route for an id that exists', () => {
  it('answers 409 run_executing while it runs and 409 run_ended after, never a stale 201', async () => {
    const f = await serve();
    const first = await f.post('/api/runs', {});
    expect(first.status).toBe(201);
    const executing = await f.post('/api/runs', {});
    expect(executing.status).toBe(409);
    expect((await executing.json()).error.code).toBe('run_executing');
    f.runtime.cancelRun('run-fixed');
    await expect.poll(async () => (await f.store.getRun('run-fixed')).status).toBe('cancelled');
    const ended = await f.post('/api/runs', {});
    expect(ended.status).toBe(409);
    expect((await ended.json()).error.code).toBe('run_ended');
  });
});
