// Plain Node ESM from the packed tarballs: every entry point of protocol, runtime and client
// imports; a runtime on the memory store serves a run over node:http; the client follows it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import * as busRedis from '@runlight/bus-redis';
import * as cli from '@runlight/cli';
import * as client from '@runlight/client';
import * as protocol from '@runlight/protocol';
import * as reactServer from '@runlight/react/server';
import * as runtime from '@runlight/runtime';
import * as driver from '@runlight/runtime/driver';
import * as otel from '@runlight/runtime/otel';
import * as testing from '@runlight/runtime/testing';
import * as storePostgres from '@runlight/store-postgres';
import { Hono } from 'hono';

for (const [name, module, names] of [
  [
    '@runlight/protocol',
    protocol,
    ['AgentRunSchema', 'RunEventSchema', 'RunSnapshotSchema', 'PublicRunSnapshotSchema'],
  ],
  ['@runlight/runtime', runtime, ['createAgentRuntime', 'createRunRouter', 'toNodeListener']],
  ['@runlight/runtime/testing', testing, ['scriptedModel', 'withLatency']],
  ['@runlight/runtime/otel', otel, ['createOtelTelemetry']],
  ['@runlight/runtime/driver', driver, ['RunDelivery', 'BusHealth', 'evolveRun']],
  ['@runlight/client', client, ['createRunlightClient', 'mergeSnapshot', 'applyEvent']],
  ['@runlight/store-postgres', storePostgres, ['createPostgresDriver', 'migrate']],
  ['@runlight/bus-redis', busRedis, ['createRedisEventBus', 'RedisBusTimeoutError']],
  ['@runlight/react/server', reactServer, ['prefetchRun', 'runQueryKey', 'runQueryOptions']],
  ['@runlight/cli', cli, ['main', 'EXIT_CODES', 'parseCommandLine']],
]) {
  for (const exported of names) assert.ok(exported in module, `${name} exports ${exported}`);
}

const store = runtime.createAgentRuntimeStore(runtime.createMemoryDriver());
// Telemetry on the global (no-op) tracer: the packed otel entry loads and runs beside the runtime.
const agents = runtime.createAgentRuntime({
  store,
  owner: 'consumer-check',
  telemetry: otel.createOtelTelemetry(),
});
const handlers = runtime.createRunHandlers({ store, runtime: agents });
const route = runtime.createRunRouter({ handlers, basePath: '/api', authorize: 'public' });
const server = createServer(runtime.toNodeListener(route));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}/api`;

const model = testing.scriptedModel([
  { firstTokenMs: 50, tokenMs: 5, text: 'Hello from a tarball.' },
]);
const { done } = agents.startRun({
  runId: 'node-run',
  model,
  messages: [{ role: 'user', content: 'Say hello.' }],
});

// The snapshot over HTTP (the public form: no worker name, no fencing token) parses with the
// protocol's public schema.
const first = await fetch(`${baseUrl}/runs/node-run`);
assert.equal(first.status, 200);
const snapshot = protocol.PublicRunSnapshotSchema.parse(await first.json());
assert.equal(snapshot.run.id, 'node-run');

// The headless client follows the run over SSE until it ends.
const runlight = client.createRunlightClient({ baseUrl });
const runStore = runlight.run('node-run');
const ended = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the client never saw the run end')), 20_000);
  const unsubscribe = runStore.subscribe(() => {
    if (runStore.getState().run?.status === 'completed') {
      clearTimeout(timer);
      unsubscribe();
      resolve(runStore.getState());
    }
  });
});
const finalRun = await done;
assert.equal(finalRun.status, 'completed');
const state = await ended;
assert.equal(client.selectActivity(state).kind, 'completed');
const text = client
  .selectMessage(state)
  ?.parts.filter((part) => part.type === 'text')
  .map((part) => part.text)
  .join('');
assert.equal(text, 'Hello from a tarball.');

// The finished run's event stream replays and ends.
const events = await (await fetch(`${baseUrl}/runs/node-run/events`)).text();
assert.match(events, /event: run-status/);

// Hono mounts the same router (the README's setup).
const app = new Hono();
app.all('/api/runs/*', async (c) => (await route(c.req.raw)) ?? c.notFound());
const viaHono = await app.request('http://localhost/api/runs/node-run');
assert.equal(viaHono.status, 200);
assert.equal((await viaHono.json()).run.status, 'completed');

await new Promise((resolve) => server.close(resolve));
console.log('node-esm: ok');
