import { connect } from 'node:net';

/**
 * A client that POSTs a chunked body of `bytes` whole before it reads a byte of the answer (as
 * many simple clients do), then reports the status it reads, or the error that took its place.
 * A server that stops reading leaves it blocked; one that resets the connection makes its
 * writes fail (`EPIPE`, `ECONNRESET`) and the answer is lost.
 *
 * @example
 * expect(await sendThenRead(`${origin}/api/runs/run-1/approvals`)).toBe(401);
 */
export function sendThenRead(
  url: string,
  { token, bytes = 50 * 1024 * 1024 }: { token?: string | undefined; bytes?: number } = {},
): Promise<number | string> {
  const { hostname, port, pathname } = new URL(url);
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
    socket.on('close', () => settle(`closed before an answer (${received.length} bytes)`));
    socket.pause(); // reads nothing until the body is sent
    const head =
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n' +
      `${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`;
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const frame = Buffer.concat([
      Buffer.from(`${chunk.byteLength.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    const write = () => {
      while (!settled && sent < bytes) {
        sent += chunk.byteLength;
        if (!socket.write(frame)) {
          socket.once('drain', write);
          return;
        }
      }
      if (!settled) {
        socket.write('0\r\n\r\n');
        socket.resume(); // now it reads the answer
      }
    };
    socket.write(head);
    write();
  });
}
