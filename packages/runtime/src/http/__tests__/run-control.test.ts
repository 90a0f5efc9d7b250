import type { AgentRun } from '@runlight/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntime, type RunHandle } from '../../runner/agent-runtime';
import type { ToolApprovalAnswer } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { createHttpFixture, listen, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A driver whose writes answer `writeMs` later (a database on a later tick); reads at once. */
function slowWrites(driver: AgentRuntimeDriver, writeMs: number): AgentRuntimeDriver {
  return {
    load: (runId) => driver.load(runId),
    readEvents: (runId, after) => driver.readEvents(runId, after),
    findExpiredRuns: (...args) => driver.findExpiredRuns(...args),
    compareAndSet: async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, writeMs));
      return driver.compareAndSet(...args);
    },
  };
}

async function serve(
  options: Omit<Parameters<typeof createRunHandlers>[0], 'store' | 'runtime'> & {
    store: Parameters<typeof createRunHandlers>[0]['store'];
    runtime: Parameters<typeof createRunHandlers>[0]['runtime'];
  },
) {
  const handlers = createRunHandlers(options);
  const server = await listen(
    toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
  );
  cleanups.push(server.close);
  return (path: string) => `${server.origin}/api${path}`;
}

const postJson = (body: string, type = 'application/json') => ({
  method: 'POST',
  headers: { 'content-type': type },
  body,
});

describe('starting a run: the run exists before its id is returned', () => {
  it('runtime.startRun(...).created resolves only once the store holds the run (a later-tick store)', async () => {
    const store = createAgentRuntimeStore(slowWrites(createMemoryDriver(), 40));
    const runtime = createAgentRuntime({ store, owner: 'worker-a' });
    const url = await serve({ store, runtime });
    const handle = runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hi' }]),
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const created: AgentRun = await handle.created;
    expect(created.id).toBe('run-1');
    // What the client does next with the id it was just given.
    const response = await fetch(url('/runs/run-1'));
    expect(response.status).toBe(200);
    await handle.done;
  });

  it('POST /runs with a start callback answers 201 { runId } and the snapshot is there at once', async () => {
    const store = createAgentRuntimeStore(slowWrites(createMemoryDriver(), 40));
    const runtime = createAgentRuntime({ store, owner: 'worker-a' });
    const handles: RunHandle[] = [];
    const url = await serve({
      store,
      runtime,
      start: ({ runId, body }) => {
        const prompt = (body as { prompt?: unknown } | undefined)?.prompt;
        if (typeof prompt !== 'string') {
          return Response.json({ error: { code: 'bad_body', message: 'prompt' } }, { status: 400 });
        }
        const handle = runtime.startRun({
          runId,
          model: scriptedModel([{ text: 'Hi' }]),
          messages: [{ role: 'user', content: prompt }],
        });
        handles.push(handle);
        return handle;
      },
    });
    const response = await fetch(url('/runs'), postJson('{"prompt":"Hello"}'));
    expect(response.status).toBe(201);
    const { runId } = (await response.json()) as { runId: string };
    expect(runId).toMatch(/^run-[0-9a-f-]{36}$/);
    expect((await fetch(url(`/runs/${runId}`))).status).toBe(200);
    expect((await fetch(url('/runs'), postJson('{}'))).status).toBe(400);
    expect((await fetch(url('/runs'), postJson('{"prompt":"x"}', 'text/plain'))).status).toBe(415);
    await Promise.all(handles.map((handle) => handle.done));
  });

  it('answers null (no route) for POST /runs without a start callback', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const url = await serve({ store, runtime: new RunEventHub() });
    expect((await fetch(url('/runs'), postJson('{}'))).status).toBe(404);
  });
});

describe('POST /runs/:id/cancel', () => {
  it('cancels a running run of the runtime and answers 202 { runId }', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({ store, owner: 'worker-a' });
    const url = await serve({ store, runtime });
    const handle = runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ firstTokenMs: 10_000, text: 'never' }]),
      messages: [{ role: 'user', content: 'Hello' }],
    });
    await handle.created;
    const response = await fetch(url('/runs/run-1/cancel'), { method: 'POST' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ runId: 'run-1' });
    expect((await handle.done).status).toBe('cancelled');
  });

  it('answers 404 for an unknown run and 501 when the runtime cannot cancel', async () => {
    const f = await createHttpFixture();
    cleanups.push(f.close);
    expect((await fetch(f.url('/runs/ghost/cancel'), { method: 'POST' })).status).toBe(501);
    const store = createAgentRuntimeStore(createMemoryDriver());
    const url = await serve({ store, runtime: createAgentRuntime({ store }) });
    const response = await fetch(url('/runs/ghost/cancel'), { method: 'POST' });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('run_not_found');
  });
});

describe('POST /runs/:id/approvals', () => {
  async function approvals(
    resume?: (approvals: readonly ToolApprovalAnswer[]) => Promise<AgentRun>,
  ) {
    const resumed: (readonly ToolApprovalAnswer[])[] = [];
    const f = await createHttpFixture({
      maxBodyBytes: 1024,
      source: (hub) => ({
        subscribe: (runId, listener) => hub.subscribe(runId, listener),
        liveDeltas: (runId) => hub.liveDeltas(runId),
        cancelRun: () => {},
        resumeRun: ({ approvals }) => {
          resumed.push(approvals);
          const created = resume ? resume(approvals) : f.store.getRun('run-1');
          created.catch(() => {});
          return { done: created, created };
        },
      }),
    });
    cleanups.push(f.close);
    await ScriptedRun.start(f, 'run-1');
    return {
      ...f,
      resumed,
      post: (body: string, type?: string) =>
        fetch(f.url('/runs/run-1/approvals'), postJson(body, type)),
    };
  }

  it('resumes with the validated answers and answers 202 { runId }', async () => {
    const f = await approvals();
    const response = await f.post(
      JSON.stringify({ approvals: [{ approvalId: 'a-1', approved: false, reason: 'no' }] }),
    );
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ runId: 'run-1' });
    expect(f.resumed).toEqual([[{ approvalId: 'a-1', approved: false, reason: 'no' }]]);
  });

  it.each([
    ['not JSON', '{', 'bad_body'],
    ['no approvals', '{"approvals":[]}', 'bad_body'],
    ['a wrong field type', '{"approvals":[{"approvalId":"a","approved":"yes"}]}', 'bad_body'],
    ['an unknown field', '{"approvals":[{"approvalId":"a","approved":true}],"x":1}', 'bad_body'],
    ['an empty body', '', 'bad_body'],
  ])('answers 400 to %s and resumes nothing', async (_, body, code) => {
    const f = await approvals();
    const response = await f.post(body);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(code);
    expect(f.resumed).toEqual([]);
  });

  it('answers 415 to a body that is not application/json', async () => {
    const f = await approvals();
    const response = await f.post(
      '{"approvals":[{"approvalId":"a","approved":true}]}',
      'text/plain',
    );
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe('unsupported_media_type');
    expect(f.resumed).toEqual([]);
  });

  it('counts the limit in bytes, not characters: 400 characters of "€" are 1,200 bytes (413)', async () => {
    const f = await approvals();
    const reason = '€'.repeat(400);
    const body = JSON.stringify({ approvals: [{ approvalId: 'a', approved: true, reason }] });
    expect(body.length).toBeLessThan(1024);
    const response = await f.post(body);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('body_too_large');
    expect(f.resumed).toEqual([]);
  });

  it('answers 409 not_awaiting_approval when the runtime refuses the answers', async () => {
    const f = await approvals(async () => {
      throw new TypeError('Run has no pending approval request a-9 in its assistant message');
    });
    const response = await f.post('{"approvals":[{"approvalId":"a-9","approved":true}]}');
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('not_awaiting_approval');
  });

  it('answers 404 for an unknown run', async () => {
    const f = await approvals();
    const response = await fetch(
      f.url('/runs/ghost/approvals'),
      postJson('{"approvals":[{"approvalId":"a","approved":true}]}'),
    );
    expect(response.status).toBe(404);
  });
});

describe('readJsonBody stops reading at the limit', () => {
  it('refuses a streamed body once the limit is passed and reads no more of it', async () => {
    const f = await createHttpFixture({
      maxBodyBytes: 1024,
      source: (hub) => ({
        subscribe: (runId, listener) => hub.subscribe(runId, listener),
        liveDeltas: (runId) => hub.liveDeltas(runId),
        resumeRun: vi.fn(),
      }),
    });
    cleanups.push(f.close);
    await ScriptedRun.start(f, 'run-1');
    let pulled = 0;
    const chunk = new Uint8Array(256).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        if (pulled > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(f.url('/runs/run-1/approvals'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    // The server stopped at ~1 KiB; what the client produced meanwhile is socket buffering.
    expect(pulled).toBeLessThan(16 * 1024 * 1024);
  });
});
