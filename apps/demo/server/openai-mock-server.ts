import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the mock, in the order requests arrive (the last one repeats). */
export type MockCompletion =
  /** A streamed chat completion: `firstTokenMs` before the first token, `tokenMs` between. */
  | { kind: 'stream'; tokens: readonly string[]; firstTokenMs?: number; tokenMs?: number }
  /** An HTTP error before any byte of the stream, with an optional `retry-after` (seconds). */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** A stream that sends `afterTokens` tokens, then the socket is destroyed mid-answer. */
  | { kind: 'break'; tokens: readonly string[]; afterTokens: number; tokenMs?: number };

export interface OpenAiMockServer {
  /** `http://127.0.0.1:<port>/v1` — the `baseURL` of an OpenAI-compatible provider. */
  baseUrl: string;
  /** The parsed JSON bodies of the chat-completion requests received, in order. */
  requests: unknown[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chunk(
  id: string,
  model: string,
  delta: object,
  finishReason: string | null,
  usage?: object,
) {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: 1_790_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  })}\n\n`;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const part of request) text += part;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A small OpenAI-compatible server on loopback for tests and the playground: `POST
 * /v1/chat/completions` with `stream: true` answers `chat.completion.chunk` SSE as the OpenAI API
 * does (role, content deltas, a final chunk with `finish_reason` and `usage`, `[DONE]`), and can
 * answer 429 with `retry-after`, 500, or break the stream mid-answer — one scripted answer per
 * request, in order.
 *
 * @example
 * const mock = await startOpenAiMockServer([{ kind: 'status', status: 429, retryAfterSeconds: 1 }, { kind: 'stream', tokens: ['Hi'] }]);
 * const provider = createOpenAICompatible({ name: 'mock', baseURL: mock.baseUrl });
 */
export async function startOpenAiMockServer(
  script: readonly MockCompletion[],
): Promise<OpenAiMockServer> {
  const requests: unknown[] = [];
  let next = 0;
  const server: Server = createServer(
    async (request: IncomingMessage, response: ServerResponse) => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }),
        );
        return;
      }
      const body = (await readJson(request)) as { model?: string } | null;
      requests.push(body);
      const answer = script[Math.min(next++, script.length - 1)];
      const model = body?.model ?? 'mock-model';
      const id = `chatcmpl-${next}`;
      if (answer === undefined) {
        response.writeHead(500).end();
        return;
      }
      if (answer.kind === 'status') {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (answer.retryAfterSeconds !== undefined)
          headers['retry-after'] = `${answer.retryAfterSeconds}`;
        response.writeHead(answer.status, headers);
        const type = answer.status === 429 ? 'rate_limit_exceeded' : 'server_error';
        // Provider error text: it must never reach a durable record or an event.
        response.end(JSON.stringify({ error: { message: `mock ${type} sk-secret-123`, type } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(chunk(id, model, { role: 'assistant', content: '' }, null));
      const first = answer.kind === 'stream' ? (answer.firstTokenMs ?? 0) : 0;
      if (first > 0) await sleep(first);
      for (const [index, token] of answer.tokens.entries()) {
        if (answer.kind === 'break' && index === answer.afterTokens) {
          response.destroy();
          return;
        }
        if (index > 0 && (answer.tokenMs ?? 0) > 0) await sleep(answer.tokenMs ?? 0);
        if (response.destroyed) return;
        response.write(chunk(id, model, { content: token }, null));
      }
      const usage = {
        prompt_tokens: 10,
        completion_tokens: answer.tokens.length,
        total_tokens: 10 + answer.tokens.length,
      };
      response.write(chunk(id, model, {}, 'stop', usage));
      response.end('data: [DONE]\n\n');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
