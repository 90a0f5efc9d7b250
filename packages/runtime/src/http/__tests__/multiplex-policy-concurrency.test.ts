import { afterEach, describe, expect, it } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen, publishingDriver } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A policy that holds every call until the test opens the gate, counting how many wait at
 * once: the measure is concurrency, never time.
 */
function gatedPolicy() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let inFlight = 0;
  let peak = 0;
  const authorize = async ({ runId }: { runId: string }) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await gate;
    inFlight--;
    return runId !== 'run-7';
  };
  return { authorize, open, inFlight: () => inFlight, peak: () => peak };
}

async function serve(runs: number, policyConcurrency?: number) {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
  const ids = Array.from({ length: runs }, (_, index) => `run-${index}`);
  for (const runId of ids) await store.createRun({ runId });
  const policy = gatedPolicy();
  const router = createRunRouter({
    handlers: createRunHandlers({ store, runtime: hub }),
    multiplex: createMultiplexHandlers({
      store,
      runtime: hub,
      ...(policyConcurrency ? { policyConcurrency } : {}),
    }),
    basePath: '/api',
    authorize: policy.authorize,
    reauthorizeMs: 0,
  });
  const server = await listen(toNodeListener(router));
  cleanups.push(server.close);
  return { ids, policy, origin: server.origin };
}

describe('the many-runs routes ask the policy about their runs concurrently (bounded)', () => {
  it('run-events: all 20 runs are asked at once, so the first byte follows one policy latency', async () => {
    const f = await serve(20);
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const query = f.ids.map((id) => `run=${id}`).join('&');
    const response = fetch(`${f.origin}/api/run-events?${query}`, { signal: controller.signal });
    // One at a time, only one call would ever wait here (20 policy latencies to the first byte).
    await expect.poll(() => f.policy.inFlight(), { timeout: 20_000 }).toBe(20);
    f.policy.open();
    const answer = await response;
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    let text = '';
    while (!text.includes('"runId":"run-7"')) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    // The refused run is refused alone; the others open, in the order they were named.
    expect(text).toContain('event: run-error\ndata: {"runId":"run-7","status":403');
    const opened = [...text.matchAll(/event: run-open\ndata: \{"runId":"(run-\d+)"/g)].map(
      (m) => m[1],
    );
    expect(opened).toEqual(f.ids.filter((id) => id !== 'run-7').slice(0, opened.length));
    await reader.cancel();
  });

  it('runs?ids=: at most policyConcurrency calls wait at once; every run is still answered', async () => {
    const f = await serve(40, 8);
    const response = fetch(`${f.origin}/api/runs?ids=${f.ids.join(',')}`);
    await expect.poll(() => f.policy.inFlight(), { timeout: 20_000 }).toBe(8);
    f.policy.open();
    const body = (await (await response).json()) as { snapshots: unknown[]; forbidden: string[] };
    expect(f.policy.peak()).toBe(8);
    expect(body.snapshots).toHaveLength(39);
    expect(body.forbidden).toEqual(['run-7']);
  });
});
