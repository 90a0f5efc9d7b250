import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { Authorize } from '../access/authorize';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen, publishingDriver, ScriptedRun, SseReader } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Runs `run-a` and `run-b` live behind a router whose policy reads `access` at each ask. */
async function serve(
  authorize: Authorize,
  options: { reauthorizeMs?: number; ownOnly?: boolean; onError?: (error: unknown) => void } = {},
) {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
  const runs = {
    a: await ScriptedRun.start({ store, hub }, 'run-a'),
    b: await ScriptedRun.start({ store, hub }, 'run-b'),
  };
  await runs.a.startOperation();
  await runs.b.startOperation();
  const onError = options.onError ?? (() => {});
  const reauthorizeMs = options.reauthorizeMs ?? 20;
  const router = createRunRouter({
    // `ownOnly`: both handlers' own authorize and interval, mounted behind a public router.
    handlers: createRunHandlers({
      store,
      runtime: hub,
      onError,
      ...(options.ownOnly ? { authorize, reauthorizeMs } : {}),
    }),
    multiplex: createMultiplexHandlers({
      store,
      runtime: hub,
      onError,
      ...(options.ownOnly ? { authorize, reauthorizeMs } : {}),
    }),
    basePath: '/api',
    ...(options.ownOnly ? { authorize: 'public' as const } : { authorize, reauthorizeMs }),
  });
  const server = await listen(toNodeListener(router));
  cleanups.push(() => server.close());
  const open = async (path: string) => {
    const response = await fetch(`${server.origin}/api${path}`);
    expect(response.status).toBe(200);
    return new SseReader(response.body!);
  };
  return { runs, open, hub };
}

/** A policy with a switch per run. */
function revocable() {
  const allowed = new Set(['run-a', 'run-b']);
  const asked: string[] = [];
  const authorize: Authorize = ({ runId, action }) => {
    asked.push(`${action} ${runId}`);
    return allowed.has(runId);
  };
  return { allowed, asked, authorize };
}

/** Reads the catch-up (the run's status, then its operation). */
async function caughtUp(stream: SseReader): Promise<void> {
  for (let message = await stream.nextMessage(); ; message = await stream.nextMessage()) {
    if (message === null) throw new Error('the stream ended during the catch-up');
    if (message.event === 'run-operation') return;
  }
}

const parsed = (message: { event: string; data: string } | null) =>
  message && [message.event, JSON.parse(message.data) as unknown];

describe('open streams are re-authorized (reauthorizeMs)', () => {
  it('a per-run stream that loses access ends with a typed unauthorized message, then nothing', async () => {
    const policy = revocable();
    const { runs, open } = await serve(policy.authorize);
    const stream = await open('/runs/run-a/events');
    await caughtUp(stream);
    runs.a.delta('before ');
    expect((await stream.nextMessage())?.event).toBe('run-delta');
    // Still allowed across several re-checks: the stream stays open and delivers.
    await vi.waitFor(() =>
      expect(policy.asked.filter((q) => q === 'read run-a').length).toBeGreaterThan(2),
    );
    runs.a.delta('still ');
    expect((await stream.nextMessage())?.event).toBe('run-delta');

    policy.allowed.delete('run-a');
    const rest = await stream.rest();
    const end = rest.at(-1)!;
    expect(parsed(end)).toEqual([
      'unauthorized',
      { type: 'unauthorized', runId: 'run-a', status: 403, code: 'forbidden' },
    ]);
    expect(end.id).toBeNull();
    // Only deltas published before the revocation was seen may precede it; the stream ended.
    expect(rest.slice(0, -1).every((message) => message.event === 'run-delta')).toBe(true);
  });

  it("a Response from the policy names the end's status (401 unauthorized)", async () => {
    let signedIn = true;
    const { open } = await serve(() =>
      signedIn
        ? true
        : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } }),
    );
    const stream = await open('/runs/run-a/events');
    await caughtUp(stream);
    signedIn = false;
    expect(parsed((await stream.rest()).at(-1) ?? null)).toEqual([
      'unauthorized',
      { type: 'unauthorized', runId: 'run-a', status: 401, code: 'unauthorized' },
    ]);
  });

  it('a policy that throws on a re-check ends the stream plainly (no unauthorized) and reports it', async () => {
    const onError = vi.fn();
    const secret = new Error('session store down');
    let calls = 0;
    const { open } = await serve(
      () => {
        if (++calls > 1) throw secret;
        return true;
      },
      { onError },
    );
    const stream = await open('/runs/run-a/events');
    await caughtUp(stream);
    const rest = await stream.rest();
    expect(rest.map((message) => message.event)).not.toContain('unauthorized');
    expect(onError).toHaveBeenCalledWith(secret);
  });

  it("the handlers' own authorize and reauthorizeMs re-check too (no router policy)", async () => {
    const policy = revocable();
    const { open } = await serve(policy.authorize, { ownOnly: true });
    const stream = await open('/runs/run-a/events');
    await caughtUp(stream);
    policy.allowed.delete('run-a');
    expect((await stream.rest()).at(-1)?.event).toBe('unauthorized');
  });

  it('multiplexed: only the revoked run ends (unauthorized, then run-end); the other keeps streaming', async () => {
    const policy = revocable();
    const { runs, open } = await serve(policy.authorize);
    const stream = await open('/run-events?run=run-a&run=run-b');
    const seen: string[] = [];
    const next = async () => {
      const message = (await stream.nextMessage())!;
      const data = JSON.parse(message.data) as { runId: string };
      seen.push(`${message.event} ${data.runId}`);
      return message;
    };
    while (seen.filter((entry) => entry.startsWith('run-operation')).length < 2) await next();

    policy.allowed.delete('run-b');
    let end: Awaited<ReturnType<typeof next>>;
    do end = await next();
    while (end.event !== 'unauthorized');
    expect(parsed(end)).toEqual([
      'unauthorized',
      { type: 'unauthorized', runId: 'run-b', status: 403, code: 'forbidden' },
    ]);
    expect(parsed(await next())).toEqual(['run-end', { runId: 'run-b' }]);

    runs.b.delta('not for you');
    runs.a.delta('still yours');
    const after = await next();
    expect(after.event).toBe('run-delta');
    expect(JSON.parse(after.data)).toMatchObject({
      runId: 'run-a',
      chunk: { delta: 'still yours' },
    });
    expect(seen.filter((entry) => entry.endsWith('run-b')).at(-1)).toBe('run-end run-b');
    await stream.cancel();
  });

  it('reauthorizeMs: 0 turns re-checks off (the policy is asked once, at open)', async () => {
    const policy = revocable();
    const { runs, open } = await serve(policy.authorize, { reauthorizeMs: 0 });
    const stream = await open('/runs/run-a/events');
    await caughtUp(stream);
    policy.allowed.delete('run-a');
    await new Promise((resolve) => setTimeout(resolve, 100));
    runs.a.delta('x');
    expect((await stream.nextMessage())?.event).toBe('run-delta');
    expect(policy.asked).toEqual(['read run-a']);
    await stream.cancel();
  });
});
