/**
 * Memory and reconnects of watchers following a run whose tool returns one large result
 * (issue 22 item 4) — a measurement that prints figures, not a timed test:
 *
 *   pnpm exec tsx --conditions=@runlight/source packages/client/bench/large-event-rss.ts --mb 12
 *   pnpm exec tsx --conditions=@runlight/source packages/client/bench/large-event-rss.ts --mb 50
 *
 * One process: the real runtime (memory store), the real handlers on loopback and `watchers`
 * `createRunlightClient` stores (the global `fetch`) following the run for `seconds`. It prints
 * the peak RSS, the event-stream requests, the `event-ref` fetches and whether every watcher
 * reached the run's last revision. `--tool-limit-mb 64` raises `maxToolResultBytes` so the
 * result is kept and travels as an `event-ref`. Options a tree does not know are ignored, so
 * the same file measures before and after.
 */
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { listenOnLoopback } from '@runlight/test-utils';
import { isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createRunlightClient } from '../src/create-runlight-client';

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
}

const mb = argument('mb', 12);
const seconds = argument('seconds', 20);
const watchers = argument('watchers', 3);
/** `maxToolResultBytes` in MiB (default 4, the runtime's): raise it to send the result on. */
const toolLimitMb = argument('tool-limit-mb', 4);
const MiB = 1024 * 1024;

const store = createAgentRuntimeStore(createMemoryDriver());
const hub = new RunEventHub();
const runtime = createAgentRuntime({
  store,
  events: hub,
  owner: 'bench',
  onLog: () => {},
  maxToolResultBytes: toolLimitMb * 1024 * 1024,
});
const handlers = createRunHandlers({ store, runtime });
const requests = { events: 0, refs: 0, snapshots: 0 };
const listener = toNodeListener(
  createRunRouter({ handlers, basePath: '/api', authorize: 'public' }),
);
const server = await listenOnLoopback((request, response) => {
  const path = request.url?.split('?')[0] ?? '';
  if (/\/runs\/[^/]+\/events$/.test(path)) requests.events++;
  else if (/\/events\/\d+$/.test(path)) requests.refs++;
  else if (/\/runs\/[^/]+$/.test(path)) requests.snapshots++;
  listener(request, response);
});

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 50);
const baseline = process.memoryUsage().rss;

const big = 'x'.repeat(mb * MiB);
const runId = 'run-large';
const handle = runtime.startRun({
  runId,
  model: scriptedModel([
    { firstTokenMs: 300, toolCalls: [{ toolName: 'dump', input: {} }] },
    { text: 'Done reading.' },
  ]),
  messages: [{ role: 'user', content: 'Dump everything' }],
  tools: { dump: tool({ inputSchema: z.object({}), execute: async () => ({ big }) }) },
  stopWhen: isStepCount(3),
});
await handle.created;

// One client per watcher, as separate tabs are.
const tabs = Array.from({ length: watchers }, () =>
  createRunlightClient({ baseUrl: `${server.origin}/api` }).run(runId),
);
const unsubscribes = tabs.map((tab) => tab.subscribe(() => {}));
const final = await handle.done;
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
clearInterval(sampler);

const reached = tabs.filter((tab) => tab.getState().revision === final.revision).length;
const part = (await store.getSnapshot(runId)).assistant?.message.parts.find(
  (p) => p.type === 'tool-dump',
) as { state?: string } | undefined;
console.log(
  JSON.stringify(
    {
      toolResultMB: mb,
      seconds,
      watchers,
      runStatus: final.status,
      toolPartState: part?.state,
      watchersAtFinalRevision: `${reached}/${watchers}`,
      eventStreamRequests: requests.events,
      eventRefFetches: requests.refs,
      snapshotRequests: requests.snapshots,
      baselineRssMB: Math.round(baseline / MiB),
      peakRssMB: Math.round(peak / MiB),
    },
    null,
    2,
  ),
);
for (const unsubscribe of unsubscribes) unsubscribe();
await server.close();
process.exit(0);
