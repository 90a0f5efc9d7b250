import type { AgentRun, RunSnapshot } from '@runlight/protocol';
import { isTerminalStatus } from '@runlight/protocol';
import type { RuntimeLogEntry } from '@runlight/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioId } from '../../src/scenario-catalog';
import { PROVIDER_SECRET } from '../demo-models';
import { type DemoServer, startDemoServer } from '../start-demo-server';

let server: DemoServer;
let base: string;
const logs: RuntimeLogEntry[] = [];

beforeAll(async () => {
  server = await startDemoServer({
    port: 0,
    log: (entry) => logs.push(entry),
    app: false,
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

const post = (path: string, body: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

async function start(scenario: ScenarioId): Promise<string> {
  const response = await post('/api/demo/runs', JSON.stringify({ scenario }));
  expect(response.status).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

async function snapshot(runId: string): Promise<RunSnapshot> {
  const response = await fetch(`${base}/api/runs/${runId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RunSnapshot;
}

/** Polls the snapshot until `done` holds for its run. */
async function until(
  runId: string,
  done: (run: AgentRun, snap: RunSnapshot) => boolean,
): Promise<RunSnapshot> {
  for (;;) {
    const snap = await snapshot(runId);
    if (done(snap.run, snap)) return snap;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ended = (run: AgentRun) => isTerminalStatus(run.status);

describe('the demo API', () => {
  it('refuses bad POST bodies with 400 and a JSON error', async () => {
    const cases: [string, string][] = [
      ['/api/demo/runs', '{"scenario":"nope"}'],
      ['/api/demo/runs', '{'],
      ['/api/demo/runs', '{"scenario":"quick-answer","extra":1}'],
      ['/api/demo/settings', '{"latencyMs":-1}'],
      ['/api/demo/settings', '{"tokenMs":"fast"}'],
      ['/api/demo/settings', '{}'],
      ['/api/demo/runs/some-run/approvals', '{"approvalId":"a"}'],
      ['/api/demo/runs/some-run/cancel', '{"now":true}'],
      ['/api/demo/runs/bad%20id/drop', '{}'],
      ['/api/demo/runs/%E0%A4%A/cancel', '{}'],
    ];
    for (const [path, body] of cases) {
      const response = await post(path, body);
      expect(response.status, `${path} ${body}`).toBe(400);
      const json = (await response.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe('bad_request');
      expect(json.error.message.length).toBeGreaterThan(0);
    }
  });

  it('answers unknown runs with 404 and the wrong method with 405', async () => {
    expect((await post('/api/demo/runs/unknown-run/cancel', '{}')).status).toBe(404);
    expect((await fetch(`${base}/api/demo/runs/unknown-run`)).status).toBe(404);
    expect((await fetch(`${base}/api/demo/runs`)).status).toBe(405);
    expect((await fetch(`${base}/api/runs/unknown-run`)).status).toBe(404);
  });

  it('changes settings and reports them', async () => {
    const response = await post('/api/demo/settings', '{"tokenMs":30}');
    expect(await response.json()).toEqual({ latencyMs: 0, tokenMs: 30 });
    expect(await (await fetch(`${base}/api/demo/settings`)).json()).toEqual({
      latencyMs: 0,
      tokenMs: 30,
    });
  });
});

describe('every scenario ends as it says, on a store that answers on later ticks', () => {
  beforeAll(async () => {
    await post('/api/demo/settings', '{"latencyMs":10,"tokenMs":20}');
  });
  afterAll(async () => {
    await post('/api/demo/settings', '{"latencyMs":0,"tokenMs":60}');
  });

  it('quick answer, tools, compaction, failures, takeover and cancels', async () => {
    const results = await Promise.all(
      (
        [
          'quick-answer',
          'tool-steps',
          'compaction',
          'provider-failure',
          'storage-conflict',
          'lease-stolen',
          'cancel-during-wait',
          'cancel-during-stream',
        ] as const
      ).map(async (scenario) => {
        const runId = await start(scenario);
        const snap = await until(runId, ended);
        return [scenario, snap] as const;
      }),
    );
    const outcome = Object.fromEntries(
      results.map(([scenario, snap]) => [
        scenario,
        {
          status: snap.run.status,
          failure: snap.run.failure?.code ?? null,
          owner: snap.run.owner,
          phase: snap.run.lastOperation?.phase,
        },
      ]),
    );
    expect(outcome).toEqual({
      'quick-answer': { status: 'completed', failure: null, owner: 'worker-a', phase: 'completed' },
      'tool-steps': { status: 'completed', failure: null, owner: 'worker-a', phase: 'completed' },
      compaction: { status: 'completed', failure: null, owner: 'worker-a', phase: 'completed' },
      'provider-failure': {
        status: 'failed',
        failure: 'provider_failure',
        owner: 'worker-a',
        phase: 'failed',
      },
      'storage-conflict': {
        status: 'failed',
        failure: 'storage_conflict',
        owner: 'worker-a',
        phase: 'failed',
      },
      'lease-stolen': { status: 'completed', failure: null, owner: 'worker-b', phase: 'completed' },
      'cancel-during-wait': {
        status: 'cancelled',
        failure: null,
        owner: 'worker-a',
        phase: 'cancelled',
      },
      'cancel-during-stream': {
        status: 'cancelled',
        failure: null,
        owner: 'worker-a',
        phase: 'cancelled',
      },
    });
    const cancelledWhileWaiting = results.find(([scenario]) => scenario === 'cancel-during-wait');
    expect(cancelledWhileWaiting?.[1].run.lastOperation?.firstOutputAt).toBeUndefined();
    const cancelledWhileStreaming = results.find(
      ([scenario]) => scenario === 'cancel-during-stream',
    );
    expect(cancelledWhileStreaming?.[1].run.lastOperation?.firstOutputAt).toBeDefined();
  });

  it('keeps the provider error text out of the snapshot, the event stream and the log', async () => {
    const runId = await start('provider-failure');
    await until(runId, ended);
    const snapshotText = await (await fetch(`${base}/api/runs/${runId}`)).text();
    const eventsText = await (await fetch(`${base}/api/runs/${runId}/events`)).text();
    expect(eventsText).toContain('run-status');
    for (const text of [snapshotText, eventsText]) {
      expect(text).not.toContain(PROVIDER_SECRET);
      expect(text).not.toContain('502 from upstream');
    }
    // The failure is logged (redacted: kind, status, retryable), its text is not.
    expect(logs.some((entry) => entry.error !== undefined)).toBe(true);
    for (const entry of logs) {
      expect(`${String(entry.error)} ${JSON.stringify(entry)}`).not.toContain(PROVIDER_SECRET);
    }
  });

  it('runs an approval to the end once it is answered, and refuses an unknown approval', async () => {
    const runId = await start('approval');
    const paused = await until(runId, (_, snap) =>
      (snap.assistant?.message.parts ?? []).some(
        (part) => 'state' in part && part.state === 'approval-requested',
      ),
    );
    const part = paused.assistant!.message.parts.find(
      (candidate) => 'approval' in candidate && candidate.approval,
    ) as { approval: { id: string } };
    const unknown = await post(
      `/api/demo/runs/${runId}/approvals`,
      JSON.stringify({ approvalId: 'not-an-approval', approved: true }),
    );
    expect(unknown.status).toBe(409);
    const answered = await post(
      `/api/demo/runs/${runId}/approvals`,
      JSON.stringify({ approvalId: part.approval.id, approved: true }),
    );
    expect(answered.status).toBe(202);
    const done = await until(runId, ended);
    expect(done.run.status).toBe('completed');
    expect(JSON.stringify(done.assistant?.message)).toContain('42 files');
  });

  it('drops the live event streams of a run on the server side', async () => {
    const runId = await start('slow-first-token');
    const controller = new AbortController();
    const response = await fetch(`${base}/api/runs/${runId}/events`, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    const dropped = await post(`/api/demo/runs/${runId}/drop`, '{}');
    expect(await dropped.json()).toEqual({ runId, dropped: 1 });
    // The stream ends (abruptly) instead of waiting for the run.
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'ended';
      })(),
    ).rejects.toThrow();
    await post(`/api/demo/runs/${runId}/cancel`, '{}');
    await until(runId, ended);
  });

  it('serves the snapshot at a revision, folded from the log: at the end it is the served snapshot', async () => {
    const runId = await start('quick-answer');
    const final = await until(runId, ended);
    const { serverTime: _serverTime, ...served } = final as RunSnapshot & { serverTime?: string };
    const atEnd = await fetch(`${base}/api/demo/runs/${runId}/revisions/${final.revision}`);
    expect(atEnd.status).toBe(200);
    expect(await atEnd.json()).toEqual(served);
    const first = (await (
      await fetch(`${base}/api/demo/runs/${runId}/revisions/1`)
    ).json()) as RunSnapshot;
    expect(first).toMatchObject({ revision: 1, assistant: null, run: { status: 'queued' } });
    expect(
      (await fetch(`${base}/api/demo/runs/${runId}/revisions/${final.revision + 1}`)).status,
    ).toBe(404);
    expect((await fetch(`${base}/api/demo/runs/${runId}/revisions/0`)).status).toBe(400);
    expect((await fetch(`${base}/api/demo/runs/${runId}/revisions/x`)).status).toBe(400);
  });
});
