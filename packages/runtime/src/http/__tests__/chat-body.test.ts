import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import type { Authorize } from '../access/authorize';
import { createChatRoutes } from '../chat/create-chat-routes';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const authorize: Authorize = ({ request }) =>
  request.headers.get('authorization') === 'Bearer ok' ? true : new Response(null, { status: 401 });

/** `/api/chat` and the run router behind one bearer policy; every settled answer is recorded. */
async function serve() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const errors: unknown[] = [];
  const onError = (error: unknown) => errors.push(error);
  const chat = createChatRoutes({
    runtime,
    store,
    authorize,
    run: () => ({ model: scriptedModel([{ text: 'Hello.' }]) }),
    onError,
  });
  const router = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      onError,
      // An app's start that walks the body (a schema, a clone): what a deep body overflowed.
      start: ({ body }) => {
        JSON.stringify(body);
        return new Response(null, { status: 204 });
      },
    }),
    basePath: '/api',
    authorize,
  });
  const settled: Promise<Response | null>[] = [];
  const server = await listen(
    toNodeListener(
      (request) => {
        const path = new URL(request.url).pathname;
        const answer =
          path === '/api/chat'
            ? request.method === 'GET'
              ? chat.GET(request)
              : chat.POST(request)
            : router(request);
        settled.push(Promise.resolve(answer));
        return answer;
      },
      { onError },
    ),
  );
  cleanups.push(server.close);
  /** A POST whose body is `first` and then nothing: it never ends unless `abort()` is called. */
  const unfinished = (path: string, first: Buffer, token?: string) => {
    const url = new URL(path, server.origin);
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    request.on('error', () => {});
    const response = new Promise<IncomingMessage>((resolve) => request.on('response', resolve));
    request.write(first);
    return { response, abort: () => request.destroy() };
  };
  const post = (path: string, body: string) =>
    fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ok' },
      body,
    });
  return { errors, settled, unfinished, post };
}

describe('the chat start route reads a body only for someone the policy lets in', () => {
  it('answers a stranger 401 while the body is still arriving (it used to wait for all of it)', async () => {
    const f = await serve();
    // 512 KiB of a 1 MiB body, and the rest never comes.
    const upload = f.unfinished('/api/chat', Buffer.alloc(512 * 1024, ' '));
    const response = await upload.response;
    expect(response.statusCode).toBe(401);
    upload.abort();
  });

  it('an upload the client aborts is its own doing: no onError, no 500', async () => {
    const f = await serve();
    const upload = f.unfinished('/api/chat', Buffer.from('{"chatId":"chat-1","messages":['), 'ok');
    await expect.poll(() => f.settled.length).toBe(1);
    upload.abort();
    const answer = await f.settled[0]!.then(
      (response) => response?.status,
      () => 'rejected',
    );
    expect(answer).toBe(400);
    expect(f.errors).toEqual([]);
  });
});

describe('a deeply nested body', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('is a 400 on the chat start route (200,000 deep) and the run routes (32,000), never a 500', async () => {
    const f = await serve();
    const chatBody = `{"chatId":"chat-1","trigger":"submit-message","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"x","providerMetadata":{"a":${deep(200_000)}}}]}]}`;
    const chat = await f.post('/api/chat', chatBody);
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('bad_body');

    // The run routes' bodies are at most 64 KiB: as deep as fits.
    const start = await f.post('/api/runs', `{"input":${deep(32_000)}}`);
    expect(start.status).toBe(400);
    const approvals = await f.post('/api/runs/run-1/approvals', `{"approvals":${deep(32_000)}}`);
    expect(approvals.status).toBe(400);
    expect(f.errors).toEqual([]);
  });

  it('a body within the depth limit still reaches the route', async () => {
    const f = await serve();
    expect((await f.post('/api/runs', `{"input":${deep(60)}}`)).status).toBe(204);
  });
});
