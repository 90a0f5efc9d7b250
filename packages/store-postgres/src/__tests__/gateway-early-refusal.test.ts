import { connect } from 'node:net';
import {
  type Authorize,
  createAgentRuntimeStore,
  createMemoryDriver,
  RunEventHub,
} from '@runlight/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../scale-out/gateway';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const bearer: Authorize = ({ request }) =>
  request.headers.get('authorization') === 'Bearer good'
    ? true
    : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });

/**
 * Sends a 50 MiB chunked body whole before reading a byte of the answer (as simple clients
 * do), and reports the status it then reads — or the error that took its place. The gateway
 * used to leave the body unread and reset the connection at its keep-alive timeout (401) or
 * at once (413): the client's writes failed with ECONNRESET and the refusal was lost.
 */
function sendThenRead(origin: string, path: string, token?: string): Promise<number | string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let settled = false;
    const settle = (value: number | string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    socket.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status && received.includes('\r\n\r\n')) settle(Number(status[1]));
    });
    socket.on('close', () => settle('closed before an answer'));
    socket.pause();
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from('40000\r\n'), chunk, Buffer.from('\r\n')]);
    let sent = 0;
    const write = () => {
      while (!settled && sent < 50 * 1024 * 1024) {
        sent += chunk.byteLength;
        if (!socket.write(frame)) {
          socket.once('drain', write);
          return;
        }
      }
      if (settled) return;
      socket.write('0\r\n\r\n');
      socket.resume();
    };
    write();
  });
}

describe('startGateway: a refusal sent while a 50 MiB body still arrives reaches the client', () => {
  it('401 and 413 on the approvals route, every try', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    await store.createRun({ runId: 'run-1' });
    const gateway = await startGateway({ store, bus: new RunEventHub(), authorize: bearer });
    cleanups.push(() => gateway.close());
    const answers: (number | string)[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      answers.push(await sendThenRead(gateway.origin, '/runs/run-1/approvals'));
      answers.push(await sendThenRead(gateway.origin, '/runs/run-1/approvals', 'good'));
    }
    expect(answers).toEqual([401, 413, 401, 413, 401, 413, 401, 413]);
  });
});
