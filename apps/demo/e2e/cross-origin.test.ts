import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { jsonSchema, tool } from 'ai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './playground-page';

/**
 * A page on one origin calling the run API on another (two loopback servers, two ports: two
 * origins), in Debian's Chromium, with a bearer token — so every call is a CORS request with a
 * preflight (`Authorization` is not a simple header), on every kind of route.
 */
const pay = tool({
  description: 'Pays an amount',
  inputSchema: jsonSchema<{ amount: number }>({
    type: 'object',
    properties: { amount: { type: 'number' } },
    required: ['amount'],
  }),
  execute: async ({ amount }) => ({ paid: amount }),
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

let apiServer: Server;
let pageServer: Server;
let apiOrigin: string;
let pageOrigin: string;
let browser: Browser;
let page: Page;
/** `METHOD path?query` of every request the API server received, preflights included. */
const received: string[] = [];

beforeAll(async () => {
  pageServer = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>another origin</title><p>app</p>');
  });
  pageOrigin = await listen(pageServer);

  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, onLog: () => {} });
  const route = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      start: ({ runId, body }) =>
        (body as { scenario?: string }).scenario === 'pay'
          ? runtime.startRun({
              runId,
              model: scriptedModel([
                { text: 'Paying. ', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
                { text: 'Paid five.' },
              ]),
              messages: [{ role: 'user', content: 'Pay 5' }],
              tools: { pay },
              toolApproval: { pay: 'user-approval' },
            })
          : runtime.startRun({
              runId,
              // Waits for its first token all test long: its streams stay open.
              model: scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]),
              messages: [{ role: 'user', content: 'Wait' }],
            }),
    }),
    multiplex: createMultiplexHandlers({ store, runtime }),
    basePath: '/api',
    authorize: ({ request }) =>
      request.headers.get('authorization') === 'Bearer secret'
        ? true
        : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } }),
    cors: { origin: pageOrigin },
  });
  const listener = toNodeListener(route);
  apiServer = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    listener(request, response);
  });
  apiOrigin = await listen(apiServer);

  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(pageOrigin);
});

afterAll(async () => {
  await browser?.close();
  await close(apiServer);
  await close(pageServer);
});

describe('CORS on every route, from a page on another origin with a bearer token (Chromium)', () => {
  it('start, batch, stream, multiplex, approve and cancel all work; a request without the token reads the 401', async () => {
    const result = await page.evaluate(async (api) => {
      const auth = { authorization: 'Bearer secret' };
      const json = (body: unknown): RequestInit => ({
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      /** Reads a streamed body (fetch: an EventSource cannot send Authorization) until `needles`. */
      const readUntil = async (response: Response, needles: string[]) => {
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        while (!needles.every((needle) => text.includes(needle))) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        await reader.cancel();
        return text;
      };
      const out: Record<string, unknown> = {};

      const slowStart = await fetch(`${api}/runs`, json({ scenario: 'slow' }));
      const { runId: slow } = (await slowStart.json()) as { runId: string };
      const payStart = await fetch(`${api}/runs`, json({ scenario: 'pay' }));
      const { runId: paying } = (await payStart.json()) as { runId: string };
      out.start = [slowStart.status, payStart.status];

      const batch = await fetch(`${api}/runs?ids=${slow},${paying}`, { headers: auth });
      const batchBody = (await batch.json()) as { snapshots: { run: { id: string } }[] };
      out.batch = [batch.status, batchBody.snapshots.map((snapshot) => snapshot.run.id)];

      const stream = await fetch(`${api}/runs/${slow}/events`, { headers: auth });
      out.stream = [
        stream.status,
        stream.headers.get('content-type'),
        (await readUntil(stream, ['event: run-operation'])).includes(`"runId":"${slow}"`),
      ];

      const many = await fetch(`${api}/run-events?run=${slow}&run=${paying}`, { headers: auth });
      const manyText = await readUntil(many, [
        `"runId":"${slow}"`,
        `"runId":"${paying}"`,
        'event: run-operation',
      ]);
      out.multiplex = [many.status, (manyText.match(/event: run-open/g) ?? []).length];

      // The paying run pauses for its approval: find the request in the snapshot, answer it.
      let approvalId: string | undefined;
      for (let attempt = 0; attempt < 200 && !approvalId; attempt++) {
        const snapshot = (await (
          await fetch(`${api}/runs/${paying}`, { headers: auth })
        ).json()) as {
          assistant: { message: { parts: { state?: string; approval?: { id: string } }[] } } | null;
        };
        approvalId = snapshot.assistant?.message.parts.find(
          (part) => part.state === 'approval-requested',
        )?.approval?.id;
        if (!approvalId) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const approve = await fetch(
        `${api}/runs/${paying}/approvals`,
        json({ approvals: [{ approvalId, approved: true }] }),
      );
      out.approve = approve.status;

      const cancel = await fetch(`${api}/runs/${slow}/cancel`, { method: 'POST', headers: auth });
      out.cancel = cancel.status;

      const anonymous = await fetch(`${api}/runs/${slow}`);
      // A plain GET (no preflight): the 401 carries the CORS headers, so the page can read it.
      out.anonymous = anonymous.status;
      out.ids = { slow, paying };
      return out;
    }, `${apiOrigin}/api`);

    expect(result).toMatchObject({
      start: [201, 201],
      stream: [200, 'text/event-stream; charset=utf-8', true],
      multiplex: [200, 2],
      approve: 202,
      cancel: 202,
      anonymous: 401,
    });
    const { slow, paying } = result.ids as { slow: string; paying: string };
    expect(result.batch).toEqual([200, [slow, paying]]);
    // Each route was reached through an answered preflight.
    const preflights = received.filter((line) => line.startsWith('OPTIONS '));
    for (const path of [
      '/api/runs',
      `/api/runs?ids=${slow},${paying}`,
      `/api/runs/${slow}/events`,
      `/api/run-events?run=${slow}&run=${paying}`,
      `/api/runs/${paying}/approvals`,
      `/api/runs/${slow}/cancel`,
    ]) {
      expect(preflights).toContain(`OPTIONS ${path}`);
    }
  });
});
