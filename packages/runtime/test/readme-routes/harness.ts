/**
 * Runs README route snippets in one process: `node --import tsx harness.ts <snippet>…`.
 *
 * The snippet's code runs unchanged. The names a README leaves to the reader
 * (`snippet-globals.d.ts`) become globals: `model` is the scripted model (a fresh one per
 * read, so every run gets the whole script), the auth helpers admit every request except one
 * sent with `x-user: nobody`, and `store` / `runtime` / `handlers` / `authorize` ("as above")
 * are an in-memory setup whose `start` route starts a scripted run. Every `server.listen(…)` is
 * bound to an ephemeral port on 127.0.0.1 instead of the snippet's (so runs never collide),
 * and a snippet that only exports a fetch app (Hono) is served on `node:http`. The port goes
 * to the parent as `{ type: 'listening', file, port }`, an import that throws as
 * `{ type: 'failed', file, message }`.
 */

import { createServer } from 'node:http';
import { type AddressInfo, Server } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import type { ModelMessage } from 'ai';
import { convertToModelMessages } from 'ai';
import { SNIPPET_ANSWER } from './answer';

interface User {
  id: string;
  canStartRuns: boolean;
}

const userOf = async (request: Request): Promise<User | null> =>
  request.headers.get('x-user') === 'nobody' ? null : { id: 'reader', canStartRuns: true };
const canAccess = (user: User | null) => user !== null;
function messagesFrom(body: unknown): ModelMessage[] {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) throw new TypeError('the start body has no `messages` array');
  return messages as ModelMessage[];
}

const store = createAgentRuntimeStore(createMemoryDriver());
const runtime = createAgentRuntime({ store });
const readerGlobals = {
  userOf,
  sessionUser: userOf,
  canAccess,
  messagesFrom,
  messages: [{ role: 'user', content: 'Hi' }] satisfies ModelMessage[],
  tools: {},
  store,
  runtime,
  handlers: createRunHandlers({
    store,
    runtime,
    start: ({ runId, body }) =>
      runtime.startRun({ runId, model: freshModel(), messages: messagesFrom(body) }),
  }),
  authorize: async ({ request }: { request: Request }) => canAccess(await userOf(request)),
  convertToModelMessages,
  createRunHandlers,
  createMultiplexHandlers,
  createRunRouter,
};
function freshModel() {
  return scriptedModel([{ firstTokenMs: 50, tokenMs: 5, text: SNIPPET_ANSWER }]);
}
Object.assign(globalThis, readerGlobals);
Object.defineProperty(globalThis, 'model', { get: freshModel, configurable: true });

/** The snippet being imported: every server it starts is reported as its own. */
let current = '';
let listens = false;
const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  listens = true;
  const file = current;
  const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
  this.once('listening', () => {
    process.send?.({ type: 'listening', file, port: (this.address() as AddressInfo).port });
  });
  return listen.call(this, { port: 0, host: '127.0.0.1' }, callback);
} as Server['listen'];

/** Imports one snippet; a snippet that only exports a fetch app is served on node:http. */
async function start(file: string): Promise<void> {
  current = file;
  listens = false;
  const module = (await import(pathToFileURL(file).href)) as {
    default?: { fetch?: (request: Request) => Response | Promise<Response> };
  };
  const app = module.default;
  if (listens) return;
  if (typeof app?.fetch !== 'function')
    throw new Error('it neither listens nor exports a fetch app');
  const fetch = app.fetch.bind(app);
  createServer(toNodeListener((request) => fetch(request))).listen();
}

// One process for every snippet (each loads the runtime once); a snippet that throws is
// reported as failed and the others still start.
for (const file of process.argv.slice(2)) {
  await start(file).catch((error: unknown) =>
    process.send?.({
      type: 'failed',
      file,
      message: error instanceof Error ? error.stack : String(error),
    }),
  );
}
