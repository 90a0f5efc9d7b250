import { randomBytes } from 'node:crypto';
import {
  createRunlightClient,
  defaultRunStatusLabels,
  describeRunStatus,
  selectRunStatus,
  statusText,
} from '@runlight/client';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, tool } from 'ai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { migrate } from '../migrate';
import { type Gateway, startGateway } from '../scale-out/gateway';
import {
  connectPostgresDeployment,
  type PostgresDeployment,
} from '../scale-out/postgres-deployment';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

/**
 * The README's deployment on the real server: a runner process and a gateway process (each its
 * own pool, store and bus), cancels and approval answers sent to the gateway.
 */
describe.runIf(serverUnavailable === null)(`durable control requests (${serverLabel})`, () => {
  const schema = `rl_durable_${process.pid}_${randomBytes(4).toString('hex')}`;
  const pools: pg.Pool[] = [];
  let runnerSide: PostgresDeployment;
  let gatewaySide: PostgresDeployment;
  let gateway: Gateway;

  beforeAll(async () => {
    const open = () => {
      const pool = new pg.Pool({ ...serverPoolConfig(), max: 4 });
      pool.on('error', () => {});
      pools.push(pool);
      return pool;
    };
    await migrate(open(), { schema });
    runnerSide = await connectPostgresDeployment({ pool: open(), schema, migrate: false });
    gatewaySide = await connectPostgresDeployment({ pool: open(), schema, migrate: false });
    gateway = await startGateway({
      store: gatewaySide.store,
      bus: gatewaySide.bus,
      authorize: 'public',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await runnerSide?.close();
    await gatewaySide?.close();
    await pools[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    for (const pool of pools) await pool.end();
  });

  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${gateway.origin}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: json.error?.code };
  };

  it('a cancel sent to the gateway ends a streaming run on the runner cancelled', async () => {
    const { runtime, stop } = runnerSide.startRunner({ owner: 'runner-cancel', recovery: false });
    try {
      const runId = `cancel-${randomBytes(4).toString('hex')}`;
      const text = Array.from({ length: 1_000 }, (_, i) => `w${i} `);
      const run = runtime.startRun({
        runId,
        model: scriptedModel([{ text, tokenMs: 10 }]),
        messages: [{ role: 'user', content: 'Go' }],
      });
      await run.created;
      expect(await post(`/runs/${runId}/cancel`)).toEqual({ status: 202, code: undefined });
      const ended = await run.done;
      expect(ended.status).toBe('cancelled');
      expect((await gatewaySide.store.getRun(runId)).status).toBe('cancelled');
      expect(await post(`/runs/${runId}/cancel`)).toEqual({ status: 409, code: 'run_ended' });
    } finally {
      stop();
    }
  });

  it('a cancel recorded on the gateway reaches the runner through the bus, not its poll', async () => {
    // A poll a minute apart: only the NOTIFY can bring the cancel in time.
    const { runtime, stop } = runnerSide.startRunner({
      owner: 'runner-notified',
      recovery: false,
      controlPollMs: 60_000,
    });
    try {
      const runId = `notify-${randomBytes(4).toString('hex')}`;
      const text = Array.from({ length: 2_000 }, (_, i) => `w${i} `);
      const run = runtime.startRun({
        runId,
        model: scriptedModel([{ text, tokenMs: 10 }]),
        messages: [{ role: 'user', content: 'Go' }],
      });
      await run.created;
      // Past the start-time wake: the pump reads again only when notified.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = Date.now();
      expect((await post(`/runs/${runId}/cancel`)).status).toBe(202);
      const ended = await Promise.race([
        run.done,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
      ]);
      expect(ended?.status).toBe('cancelled');
      // 2,000 tokens at 10 ms would run 20 s: it ended on the notification.
      expect(Date.now() - sent).toBeLessThan(15_000);
    } finally {
      stop();
    }
  });

  it('an approval answered on the gateway resumes the run paused on the runner, exactly once', async () => {
    const { runtime, stop } = runnerSide.startRunner({ owner: 'runner-approve', recovery: false });
    try {
      const runId = `approve-${randomBytes(4).toString('hex')}`;
      let paid = 0;
      const pay = tool({
        inputSchema: z.object({ amount: z.number() }),
        execute: async ({ amount }) => {
          paid += 1;
          return { paid: amount };
        },
      });
      const paused = await runtime.startRun({
        runId,
        model: scriptedModel([
          { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
          { text: ['paid ', 'five'], tokenMs: 20 },
        ]),
        messages: [{ role: 'user', content: 'Pay 5' }],
        tools: { pay },
        toolApproval: { pay: 'user-approval' },
        stopWhen: isStepCount(5),
      }).done;
      expect(paused.status).toBe('running');
      // What a browser following the run through the gateway shows (issue 45 item 6).
      const page = createRunlightClient({ baseUrl: gateway.origin }).run(runId);
      const said: string[] = [];
      const ended = new Promise<void>((resolve) => {
        const unsubscribe = page.subscribe(() => {
          const state = page.getState();
          const view = describeRunStatus(selectRunStatus(state), defaultRunStatusLabels, {
            recovers: true,
          });
          if (said.at(-1) !== statusText(view)) said.push(statusText(view));
          if (state.run?.status === 'completed') {
            unsubscribe();
            resolve();
          }
        });
      });
      await vi.waitFor(() => expect(said).toContain('Waiting for your approval'), {
        timeout: 15_000,
      });
      const message = (await gatewaySide.store.getSnapshot(runId)).assistant?.message;
      const part = message?.parts.find((p) => p.type === 'tool-pay') as {
        approval: { id: string };
      };
      const approve = { approvals: [{ approvalId: part.approval.id, approved: true }] };
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => post(`/runs/${runId}/approvals`, approve)),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409, 409]);
      for (;;) {
        const run = await gatewaySide.store.getRun(runId);
        if (run.status !== 'running') {
          expect(run.status).toBe('completed');
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(paid).toBe(1);
      await ended;
      // The resume is the run going on: no takeover, no stall, no hand-off.
      expect(said.at(-1)).toBe('Completed');
      for (const words of said) {
        expect(words).not.toMatch(/took over|stopped responding|Handing over/);
      }
    } finally {
      stop();
    }
  });
});
