import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import type { Authorize } from '../access/authorize';
import { createChatRoutes } from '../chat/create-chat-routes';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * The attacks tried on the chat routes, each with the answer it gets: a signed-in attacker
 * (`Bearer mallory`) and a stranger, against the documented owner policy. Nothing here may
 * start a run that is not the sender's, reach `onError` as a server fault, or answer 500.
 */
async function serve(authorize?: Authorize) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const owners = new Map<string, string>();
  const errors: unknown[] = [];
  const userOf = (request: Request) =>
    ({ 'Bearer alice': 'alice', 'Bearer mallory': 'mallory' })[
      request.headers.get('authorization') ?? ''
    ];
  const policy: Authorize =
    authorize ??
    (({ request, runId, action, chatRuns }) => {
      const user = userOf(request);
      if (!user) return new Response(null, { status: 401 });
      if (chatRuns?.some((id) => owners.get(id) !== user)) return false;
      return action === 'start' || owners.get(runId) === user;
    });
  const chat = createChatRoutes({
    runtime,
    store,
    authorize: policy,
    refuseCrossSite: true,
    run: ({ request, runId }) => {
      owners.set(runId, userOf(request)!);
      return { model: scriptedModel([{ text: 'ok' }]) };
    },
    onError: (error) => errors.push(error),
  });
  const server = await listen(
    toNodeListener(
      (request) => (request.method === 'GET' ? chat.GET(request) : chat.POST(request)),
      { onError: (error) => errors.push(error) },
    ),
  );
  cleanups.push(server.close);
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.origin}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer mallory', ...headers },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
  const get = async (query: string, token = 'mallory') => {
    const response = await fetch(`${server.origin}/api/chat?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.text() };
  };
  return { post, get, errors, store };
}

const send = (chatId: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    chatId,
    trigger: 'submit-message',
    messages: [{ id: `m-${Math.random()}`, role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    ...extra,
  });

describe('attacks on the chat routes', () => {
  it.each([
    ['chat id with NUL', send('chat\u0000x'), 400],
    ['chat id with SQL', send("x' OR '1'='1"), 400],
    ['chat id with a path', send('../../etc/passwd'), 400],
    ['chat id with unicode look-alikes', send('chаt-1'), 400],
    ['chat id of 201 characters', send('c'.repeat(201)), 400],
    ['chat id a number', send(42), 400],
    ['chat id an object', send({ $ne: null }), 400],
    ['chat id __proto__ (a new chat: the sender’s)', send('__proto__'), 201],
    ['"__proto__" key in the body', `{"__proto__":{"polluted":1},${send('chat-p').slice(1)}`, 201],
    [
      '501 messages',
      send('chat-m', {
        messages: Array.from({ length: 501 }, (_, i) => ({ id: `${i}`, role: 'user', parts: [] })),
      }),
      400,
    ],
    ['an unknown trigger', send('chat-t', { trigger: 'delete-chat' }), 400],
    ['a message without an id', send('chat-i', { messages: [{ role: 'user', parts: [] }] }), 400],
    [
      'messages that are not UI messages',
      send('chat-u', { messages: [{ id: 'a', role: 'system-admin', parts: 'x' }] }),
      400,
    ],
    ['invalid JSON', '{"chatId":', 400],
    ['a lone surrogate, not JSON', '\udc80', 400],
    ['a body of 2 MiB', send('chat-big', { pad: 'x'.repeat(2 * 1024 * 1024) }), 413],
    [
      '200,000-deep JSON',
      `{"chatId":"chat-d","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
      400,
    ],
  ])('POST %s → %i', async (_, body, status) => {
    const f = await serve();
    expect(await f.post(body)).toBe(status);
    expect(f.errors).toEqual([]);
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });

  it('POST as text/plain (a form’s enctype) → 415; cross-site → 403 before anything', async () => {
    const f = await serve();
    expect(await f.post(send('chat-f'), { 'content-type': 'text/plain' })).toBe(415);
    expect(await f.post(send('chat-f'), { 'sec-fetch-site': 'cross-site' })).toBe(403);
  });

  it('GET with hostile chat ids → 400; two chatId params → the first only, asked like any', async () => {
    const f = await serve();
    for (const query of ['chatId=%00', "chatId=x'--", 'chatId=', 'chatId=a%2Fb', 'x=1']) {
      expect((await f.get(query)).status).toBe(400);
    }
    expect(await f.post(send('chat-alice'), { authorization: 'Bearer alice' })).toBe(201);
    const doubled = await f.get('chatId=chat-mine&chatId=chat-alice');
    expect(doubled.status).toBe(200);
    expect(doubled.body).not.toContain('chat-alice');
  });

  it('a policy that throws → 500 with the generic body (its error to onError); odd verdicts → 403', async () => {
    const boom = new Error('session store down');
    const throwing = await serve(() => {
      throw boom;
    });
    expect(await throwing.post(send('chat-x'))).toBe(500);
    expect(throwing.errors).toEqual([boom]);
    for (const verdict of ['yes', 1, null, undefined, {}]) {
      const odd = await serve(() => verdict as never);
      expect(await odd.post(send('chat-x'))).toBe(403);
      expect((await odd.get('chatId=chat-x')).status).toBe(200); // answered as an unknown chat
    }
  });
});
