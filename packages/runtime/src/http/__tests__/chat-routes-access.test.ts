import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { AccessPolicyError } from '../access/access-policy-error';
import type { Authorize, AuthorizeInput } from '../access/authorize';
import { createChatRoutes } from '../chat/create-chat-routes';
import { createChatStartRoute } from '../chat/create-chat-start-route';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const send = (requestId: string) => ({
  chatId: 'chat-1',
  trigger: 'submit-message',
  requestId,
  messages: [{ id: `m-${requestId}`, role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
});

/** `/api/chat` behind a bearer policy that logs every question. */
async function serve() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const asked: Omit<AuthorizeInput, 'request'>[] = [];
  let runCalls = 0;
  let modelCalls = 0;
  const authorize: Authorize = ({ request, ...question }) => {
    asked.push(question);
    return request.headers.get('authorization') === 'Bearer ok'
      ? true
      : new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });
  };
  const chat = createChatRoutes({
    runtime,
    store,
    authorize,
    run: () => {
      runCalls++;
      const model = scriptedModel([{ text: 'Hello.' }]);
      const doStream = model.doStream.bind(model);
      model.doStream = (options) => {
        modelCalls++;
        return doStream(options);
      };
      return { model };
    },
  });
  const server = await listen(
    toNodeListener((request) =>
      request.method === 'GET' ? chat.GET(request) : chat.POST(request),
    ),
  );
  cleanups.push(server.close);
  const post = (body: unknown, token?: string) =>
    fetch(`${server.origin}/api/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
  const get = (chatId: string, token?: string) =>
    fetch(`${server.origin}/api/chat?chatId=${chatId}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  return { store, asked, post, get, calls: () => ({ run: runCalls, model: modelCalls }) };
}

describe('createChatRoutes under the access policy', () => {
  it('POST without credentials is a 401 before the body is read: nothing started or chosen', async () => {
    const f = await serve();
    const response = await f.post(send('r1'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(f.calls()).toEqual({ run: 0, model: 0 });
    expect(await f.store.runInputs!.listChatRuns('chat-1', { limit: 20 })).toEqual([]);
    // Asked who is asking (no run named yet); the body was never read, so no chat either.
    expect(f.asked).toEqual([{ runId: '', action: 'start' }]);
  });

  it('POST with credentials asks about the chat itself: its id and its existing runs', async () => {
    const f = await serve();
    const first = (await (await f.post(send('r1'), 'ok')).json()) as { runId: string };
    f.asked.length = 0;
    const second = (await (await f.post(send('r2'), 'ok')).json()) as { runId: string };
    expect(f.asked).toEqual([
      { runId: '', action: 'start' },
      { runId: second.runId, action: 'start', chatId: 'chat-1', chatRuns: [first.runId] },
    ]);
  });

  it('GET ?chatId= without credentials is a 401; with them the conversation', async () => {
    const f = await serve();
    const started = await f.post(send('r1'), 'ok');
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    await expect.poll(async () => (await f.store.getRun(runId)).status).toBe('completed');
    f.asked.length = 0;

    const refused = await f.get('chat-1');
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('');
    expect(f.asked).toEqual([{ runId, action: 'read', chatId: 'chat-1', chatRuns: [runId] }]);

    const allowed = await f.get('chat-1', 'ok');
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ chatId: 'chat-1', runId });
    expect(f.calls()).toEqual({ run: 1, model: 1 });
  });

  it('is not built without a policy (AccessPolicyError); `public` is the explicit choice', () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({ store, onLog: () => {} });
    const run = () => ({ model: scriptedModel([{ text: 'x' }]) });
    const missing = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return AccessPolicyError.isInstance(error) ? error.problem : 'other';
      }
      return 'built';
    };
    expect(missing(() => createChatRoutes({ runtime, store, run } as never))).toBe('missing');
    expect(missing(() => createChatStartRoute({ runtime, run } as never))).toBe('missing');
    expect(missing(() => createChatRoutes({ runtime, store, run, authorize: 'public' }))).toBe(
      'built',
    );
  });
});
