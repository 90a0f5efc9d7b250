import { afterEach, describe, expect, it } from 'vitest';
import { InvalidChatIdError } from '../../errors/invalid-chat-id-error';
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

const USERS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer bob': 'bob' };
const userOf = (request: Request) => USERS[request.headers.get('authorization') ?? ''];

/**
 * The policy `packages/runtime/src/http/README.md` documents for chats ("A chat belongs to
 * whoever started it"), word for word apart from the stores: the app records each run's owner
 * when `run` is called and the policy checks the chat's runs.
 */
function documentedPolicy(owners: Map<string, string>): Authorize {
  return async ({ request, runId, action, chatRuns }) => {
    const user = userOf(request);
    if (!user) {
      return new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    // A chat is its runs': every run it has must be the caller's (a new chat has none).
    if (chatRuns?.some((id) => owners.get(id) !== user)) return false;
    if (action === 'start') return true;
    return owners.get(runId) === user;
  };
}

/** A policy that checks run owners only and ignores the chat: what older docs showed. */
function runOwnerPolicy(owners: Map<string, string>): Authorize {
  return ({ request, runId, action }) => {
    const user = userOf(request);
    if (!user) return new Response(null, { status: 401 });
    return action === 'start' || owners.get(runId) === user;
  };
}

async function serve(policy: (owners: Map<string, string>) => Authorize) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const owners = new Map<string, string>();
  const errors: unknown[] = [];
  const chat = createChatRoutes({
    runtime,
    store,
    authorize: policy(owners),
    run: ({ request, runId }) => {
      owners.set(runId, userOf(request)!);
      return { model: scriptedModel([{ text: 'Hello.' }]) };
    },
    onError: (error) => errors.push(error),
  });
  const server = await listen(
    toNodeListener((request) =>
      request.method === 'GET' ? chat.GET(request) : chat.POST(request),
    ),
  );
  cleanups.push(server.close);
  let sends = 0;
  const post = async (chatId: string, who?: string) => {
    sends++;
    const response = await fetch(`${server.origin}/api/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(who ? { authorization: `Bearer ${who}` } : {}),
      },
      body: JSON.stringify({
        chatId,
        trigger: 'submit-message',
        requestId: `request-${sends}`,
        messages: [{ id: `m-${sends}`, role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      }),
    });
    const body = (await response.json().catch(() => null)) as { runId?: string } | null;
    if (body?.runId)
      await expect.poll(async () => (await store.getRun(body.runId!)).status).toBe('completed');
    return { status: response.status, runId: body?.runId };
  };
  const get = async (chatId: string, who?: string) => {
    const response = await fetch(`${server.origin}/api/chat?chatId=${encodeURIComponent(chatId)}`, {
      headers: who ? { authorization: `Bearer ${who}` } : {},
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
    };
  };
  return { store, owners, errors, post, get };
}

describe('a chat belongs to whoever started it (the documented policy)', () => {
  it("Bob cannot post to, read or list Alice's chat; her chat reads as an unknown one to him", async () => {
    const f = await serve(documentedPolicy);
    const alice = await f.post('chat-alice-1', 'alice');
    expect(alice.status).toBe(201);

    // Bob picks her chat id: refused before anything is validated, chosen or started.
    expect((await f.post('chat-alice-1', 'bob')).status).toBe(403);
    expect((await f.store.runInputs!.listChatRuns('chat-alice-1')).map((run) => run.runId)).toEqual(
      [alice.runId],
    );

    const hers = await f.get('chat-alice-1', 'alice');
    expect(hers.status).toBe(200);
    expect(hers.body).toMatchObject({ runId: alice.runId, runs: [{ runId: alice.runId }] });

    // To Bob her chat is exactly a chat nobody started: no existence oracle.
    const his = await f.get('chat-alice-1', 'bob');
    const unknown = await f.get('chat-nobody', 'bob');
    expect(his.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect({ ...his.body, chatId: 'x' }).toEqual({ ...unknown.body, chatId: 'x' });
    expect(JSON.stringify(his.body)).not.toContain(alice.runId);

    // A stranger gets the same 401 for a chat that exists and one that does not.
    const strangerKnown = await f.get('chat-alice-1');
    const strangerUnknown = await f.get('chat-nobody');
    expect([strangerKnown.status, strangerUnknown.status]).toEqual([401, 401]);
    expect(f.errors).toEqual([]);
  });

  it('lists only the runs the policy lets the reader see, even under a policy blind to chats', async () => {
    const f = await serve(runOwnerPolicy);
    const alice = await f.post('chat-shared', 'alice');
    // This policy lets Bob append to her chat (it never looks at the chat)…
    const bob = await f.post('chat-shared', 'bob');
    expect(bob.status).toBe(201);
    // …but what he reads lists his run alone, never hers.
    const his = await f.get('chat-shared', 'bob');
    expect(his.status).toBe(200);
    expect((his.body!.runs as { runId: string }[]).map((run) => run.runId)).toEqual([bob.runId]);
    expect(JSON.stringify(his.body)).not.toContain(alice.runId);
  });
});

describe('chat ids are validated like run ids', () => {
  it('answers 400 for a chat id a run id could not be, on both routes; the store refuses it typed', async () => {
    const f = await serve(documentedPolicy);
    for (const chatId of ['chat\u0000x', 'a b', 'x'.repeat(201), '../chat', '']) {
      expect((await f.post(chatId, 'alice')).status).toBe(400);
      expect((await f.get(chatId, 'alice')).status).toBe(400);
    }
    const listed = await f.store.runInputs!.listChatRuns('chat\u0000x').then(
      () => null,
      (error: unknown) => error,
    );
    expect(InvalidChatIdError.isInstance(listed)).toBe(true);
    expect(f.errors).toEqual([]);
  });
});
