import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { RunEventHub } from '@runlight/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../scale-out/gateway';

const bus = Object.assign(new RunEventHub(), { close: async () => {} });
const store = {} as never; // a start route reads nothing from the store

interface Received {
  path: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A fake runner: answers each forwarded start with the next of `answers`. */
async function fakeRunner(answers: { status: number; body: unknown }[]) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url, headers: request.headers, body });
      const answer = answers[Math.min(received.length, answers.length) - 1]!;
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, received, url: `http://127.0.0.1:${port}` };
}

const closing: (Gateway | Server)[] = [];
afterEach(async () => {
  for (const item of closing.splice(0)) {
    if ('origin' in item) await item.close();
    else await new Promise((resolve) => item.close(resolve));
  }
});

async function gatewayTo(startRunsAt: string) {
  const gateway = await startGateway({
    store,
    bus,
    authorize: 'public',
    basePath: '/api',
    startRunsAt,
  });
  closing.push(gateway);
  return gateway;
}

const start = (gateway: Gateway) =>
  fetch(`${gateway.origin}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer reader' },
    body: JSON.stringify({ messages: ['hi'] }),
  });

describe('a gateway forwarding starts to the runners (startRunsAt)', () => {
  it("sends the caller's headers and body to {runners}{basePath}/runs and answers with the runner's response", async () => {
    const runner = await fakeRunner([{ status: 201, body: { runId: 'run-from-runner' } }]);
    closing.push(runner.server);
    const response = await start(await gatewayTo(runner.url));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ runId: 'run-from-runner' });
    expect(runner.received).toHaveLength(1);
    expect(runner.received[0]).toMatchObject({
      path: '/api/runs',
      headers: { authorization: 'Bearer reader', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: ['hi'] }),
    });
  });

  it('tries again when a runner is shutting down (503 runtime_closed): the next runner takes the start', async () => {
    const closed = { error: { code: 'runtime_closed', message: 'shutting down' } };
    const runner = await fakeRunner([
      { status: 503, body: closed },
      { status: 201, body: { runId: 'taken' } },
    ]);
    closing.push(runner.server);
    const response = await start(await gatewayTo(runner.url));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ runId: 'taken' });
    expect(runner.received).toHaveLength(2);
  });

  it("passes a runner's refusal on as is, tried once", async () => {
    const refusal = { error: { code: 'bad_body', message: 'messages: not UI messages' } };
    const runner = await fakeRunner([{ status: 400, body: refusal }]);
    closing.push(runner.server);
    const response = await start(await gatewayTo(runner.url));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(refusal);
    expect(runner.received).toHaveLength(1);
  });

  it('answers 503 runner_unavailable when no runner listens', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const response = await start(await gatewayTo(`http://127.0.0.1:${port}`));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'runner_unavailable' } });
  });

  it('refuses to both execute and forward starts', async () => {
    await expect(
      startGateway({
        store,
        bus,
        authorize: 'public',
        start: () => new Response(null),
        startRunsAt: 'http://x',
      }),
    ).rejects.toThrow(TypeError);
  });
});
