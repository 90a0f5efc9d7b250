/**
 * What 200 anonymous clients cost that each send all but the last byte of a 1 MiB body to the
 * chat start route (`createChatRoutes` behind a bearer policy), against the same load on the
 * router's own `POST /runs` (the baseline) in the same process: RSS growth once the server has
 * read every byte sent, and how many got an answer.
 *
 *   node --expose-gc --conditions=@runlight/source --import tsx packages/runtime/bench/chat-upload-rss.ts [--clients 200]
 */
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createChatRoutes,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';

const clientsArg = process.argv.indexOf('--clients');
const CLIENTS = clientsArg > 0 ? Number(process.argv[clientsArg + 1]) : 200;
const BODY = 1024 * 1024;

const store = createAgentRuntimeStore(createMemoryDriver());
const runtime = createAgentRuntime({ store, onLog: () => {} });
const authorize = ({ request }: { request: Request }) =>
  request.headers.get('authorization') === 'Bearer ok' ? true : new Response(null, { status: 401 });
const chat = createChatRoutes({
  runtime,
  store,
  authorize,
  run: () => ({ model: scriptedModel([{ text: 'x' }]) }),
});
const router = createRunRouter({
  handlers: createRunHandlers({ store, runtime, start: () => new Response(null, { status: 204 }) }),
  basePath: '/api',
  authorize,
});
const sockets = new Set<Socket>();
const server: Server = createServer(
  toNodeListener((request) =>
    new URL(request.url).pathname === '/api/chat' ? chat.POST(request) : router(request),
  ),
);
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
server.requestTimeout = 0;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const serverRead = () => [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0);
const settle = async (target: number) => {
  // Until the server has read what was sent (or stopped reading: 2 s without progress).
  let last = -1;
  let still = 0;
  while (serverRead() < target && still < 20) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = serverRead();
    still = now === last ? still + 1 : 0;
    last = now;
  }
};

/** The clients live in another process, so their unsent buffers are not counted here. */
const CLIENT = `
const net = require('node:net');
const [port, path, clients, body] = process.argv.slice(1).map((v, i) => (i === 1 ? v : Number(v)));
let answered = 0;
for (let i = 0; i < clients; i++) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.once('data', () => { answered++; });
  socket.write('POST ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + body + '\\r\\n\\r\\n');
  socket.write(Buffer.alloc(body - 1, 0x20));
}
process.on('message', () => { process.send(answered); });
`;

async function load(path: string) {
  gc();
  const before = process.memoryUsage().rss;
  const child = fork('-e', [CLIENT, String(port), path, String(CLIENTS), String(BODY)], {
    execArgv: [],
    execPath: process.execPath,
  });
  await settle(CLIENTS * (BODY - 1));
  gc();
  const after = process.memoryUsage().rss;
  const answered = await new Promise<number>((resolve) => {
    child.once('message', (count) => resolve(count as number));
    child.send('count');
  });
  child.kill();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { path, answered, rssMiB: Math.round((after - before) / 1024 / 1024) };
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();
// One round first, so what the first connections cost (sockets, code) counts in neither row.
await load('/api/runs');
const baseline = await load('/api/runs');
const chatRoute = await load('/api/chat');
console.log(`${CLIENTS} anonymous clients, each all but the last byte of a 1 MiB body:`);
for (const row of [baseline, chatRoute]) {
  console.log(
    `  POST ${row.path.padEnd(10)} answered ${row.answered}/${CLIENTS}, RSS +${row.rssMiB} MiB`,
  );
}
console.log(
  `  chat / baseline RSS growth: ${(Math.max(chatRoute.rssMiB, 1) / Math.max(baseline.rssMiB, 1)).toFixed(1)}×`,
);
server.closeAllConnections();
server.close();
process.exit(0);
