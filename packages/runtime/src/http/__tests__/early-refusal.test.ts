import { request as httpRequest } from 'node:http';
import { sendThenRead } from '@runlight/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { Authorize } from '../access/authorize';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MIB = 1024 * 1024;
const UPLOAD_BYTES = 50 * MIB;

const bearer: Authorize = ({ request }) =>
  request.headers.get('authorization') === 'Bearer ok'
    ? true
    : new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });

async function serve() {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(createMemoryDriver());
  await store.createRun({ runId: 'run-1' });
  const router = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime: hub,
      start: () => new Response(null, { status: 204 }),
    }),
    basePath: '/api',
    authorize: bearer,
  });
  const server = await listen(toNodeListener(router));
  cleanups.push(server.close);
  return server.origin;
}

/**
 * Streams a 50 MiB chunked JSON body as fast as the server takes it and reports the status the
 * client received — or the error that took its place (`EPIPE`, `ECONNRESET`).
 */
function upload(url: string, token?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    let settled = false;
    const settle = (value: number | string) => {
      if (settled) return;
      settled = true;
      resolve(value);
      request.destroy();
    };
    request.on('response', (response) => {
      response.resume();
      settle(response.statusCode ?? 0);
    });
    request.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (!settled && sent < UPLOAD_BYTES) {
        sent += chunk.byteLength;
        if (sent === chunk.byteLength) request.write('[');
        if (!request.write(chunk)) {
          request.once('drain', write);
          return;
        }
      }
      if (!settled && sent >= UPLOAD_BYTES) request.end(']');
    };
    write();
  });
}

/** The same upload through `fetch` (undici), the body a stream that never waits. */
async function fetchUpload(url: string, token?: string): Promise<number | string> {
  let sent = 0;
  const chunk = new Uint8Array(256 * 1024).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= UPLOAD_BYTES) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body,
      duplex: 'half',
    } as RequestInit);
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? String(error);
  }
}

describe('a refusal answered while a 50 MiB body is still arriving reaches the client', () => {
  it.each([
    ['401 on approvals (no credentials)', '/api/runs/run-1/approvals', undefined, 401],
    ['401 on start (no credentials)', '/api/runs', undefined, 401],
    ['401 on cancel (no credentials)', '/api/runs/run-1/cancel', undefined, 401],
    ['413 on approvals (over maxBodyBytes)', '/api/runs/run-1/approvals', 'ok', 413],
    ['413 on start (over maxBodyBytes)', '/api/runs', 'ok', 413],
  ])('%s: every try of 12 (3 clients)', async (_, path, token, status) => {
    const origin = await serve();
    const answers: (number | string)[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      answers.push(await upload(`${origin}${path}`, token));
      answers.push(await fetchUpload(`${origin}${path}`, token));
      answers.push(await sendThenRead(`${origin}${path}`, { token, bytes: UPLOAD_BYTES }));
    }
    expect(answers).toEqual(Array.from({ length: 12 }, () => status));
  });
});
