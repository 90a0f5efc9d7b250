import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderStub {
  baseUrl: string;
  /** What each chat-completions request asked for. */
  requests: { authorization: string | undefined; model: string }[];
  close(): Promise<void>;
}

const read = async (request: IncomingMessage) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
};

/** A loopback OpenAI-compatible server: `POST /v1/chat/completions` streams `answer`. */
export async function startProviderStub(answer: string): Promise<ProviderStub> {
  const requests: ProviderStub['requests'] = [];
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await read(request)) as { model: string };
    requests.push({ authorization: request.headers.authorization, model: body.model });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 0,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    for (const word of answer.split(/(?<= )/)) response.write(chunk({ content: word }, null));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
