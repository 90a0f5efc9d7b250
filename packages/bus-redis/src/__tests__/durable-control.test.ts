import { randomBytes } from 'node:crypto';
import { scriptedModel } from '@runlight/runtime/testing';
import {
  connectPostgresDeployment,
  type PostgresDeployment,
  startGateway,
} from '@runlight/store-postgres';
import { isStepCount, tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRedisEventBus, type RedisEventBus } from '../index';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import {
  adminClient,
  freshPrefix,
  REDIS_URL,
  redisLabel,
  redisUnavailable,
} from './redis-test-server';

/**
 * The PostgreSQL bus's durable-control test (`store-postgres/.../durable-control.test.ts`) on
 * the Redis bus: a runner process and a gateway process, each its own deployment
 * (`connectPostgresDeployment({ bus })`: its own store object, so the store's in-process
 * notification cannot carry the request, and its own Redis bus).
 */
describe.runIf(redisUnavailable === null && postgresUnavailable === null)(
  `durable control requests on the Redis bus (${redisLabel}, store on PostgreSQL)`,
  () => {
    let database: Awaited<ReturnType<typeof openPostgresStore>>;
    const prefix = freshPrefix();
    const closing: (() => Promise<void>)[] = [];
    const errors: unknown[] = [];
    beforeAll(async () => {
      database = await openPostgresStore();
    });
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
      expect(errors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      const admin = await adminClient();
      await admin.dropKeys(prefix);
      await admin.close();
      await database?.close();
    });

    /** One process of the deployment on the shared database and Redis. */
    const openProcess = async (): Promise<PostgresDeployment<RedisEventBus>> => {
      const deployment = await connectPostgresDeployment({
        pool: database.pool,
        schema: database.schema,
        migrate: false,
        authorize: 'public',
        bus: (store) =>
          createRedisEventBus({
            url: REDIS_URL,
            store,
            keyPrefix: prefix,
            onError: (error) => errors.push(error),
          }),
      });
      closing.push(() => deployment.close());
      return deployment;
    };

    /**
     * A runner whose control poll is an hour apart (past any test's timeout: only the bus
     * brings it a request), and a gateway, each its own process.
     */
    const openDeployment = async (owner: string) => {
      const runnerSide = await openProcess();
      const gatewaySide = await openProcess();
      const { runtime } = runnerSide.startRunner({
        owner,
        recovery: false,
        controlPollMs: 3_600_000,
      });
      const gateway = await startGateway({ ...gatewaySide });
      closing.push(() => gateway.close());
      return { runtime, gateway, gatewayStore: gatewaySide.store };
    };

    it('a cancel recorded on the gateway reaches the runner through the bus, not its poll', async () => {
      // A poll an hour apart and a provider wait as long: only the bus can end the run.
      const { runtime, gateway, gatewayStore } = await openDeployment('runner-notified');
      const runId = `redis-notify-${randomBytes(4).toString('hex')}`;
      const run = runtime.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 3_600_000, text: 'never' }]),
        messages: [{ role: 'user', content: 'Go' }],
      });
      await run.created;
      // Past the wake as the run began: the model request waits, and the pump reads again only
      // when notified.
      await vi.waitFor(
        async () => expect((await gatewayStore.getRun(runId)).lastOperation?.phase).toBe('started'),
        { timeout: 60_000, interval: 20 },
      );
      const response = await fetch(`${gateway.origin}/runs/${runId}/cancel`, { method: 'POST' });
      expect(response.status).toBe(202);
      await vi.waitFor(
        async () => expect((await gatewayStore.getRun(runId)).status).toBe('cancelled'),
        { timeout: 60_000, interval: 50 },
      );
      expect((await run.done).status).toBe('cancelled');
    });

    it('an approval answered on the gateway resumes the run paused on the runner, exactly once, without a poll', async () => {
      const { runtime, gateway, gatewayStore } = await openDeployment('runner-approve');
      const runId = `redis-approve-${randomBytes(4).toString('hex')}`;
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
      const message = (await gatewayStore.getSnapshot(runId)).assistant?.message;
      const part = message?.parts.find((candidate) => candidate.type === 'tool-pay') as {
        approval: { id: string };
      };
      const body = JSON.stringify({
        approvals: [{ approvalId: part.approval.id, approved: true }],
      });
      const statuses = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const response = await fetch(`${gateway.origin}/runs/${runId}/approvals`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body,
          });
          await response.body?.cancel();
          return response.status;
        }),
      );
      expect(statuses.sort()).toEqual([202, 409, 409, 409]);
      // The next poll is an hour away: the bus brought the answer.
      await vi.waitFor(
        async () => expect((await gatewayStore.getRun(runId)).status).toBe('completed'),
        { timeout: 60_000, interval: 50 },
      );
      expect(paid).toBe(1);
    });
  },
);
