import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

describe.runIf(serverUnavailable === null)(
  `deployment.startRunner: a recovery loop by default (${serverLabel})`,
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openServer();
    });
    afterAll(async () => {
      await database?.close();
    });
    const connectionString = () => {
      const config = serverPoolConfig();
      return `postgres://${config.user}@${config.host}:${config.port}/${config.database}?application_name=rl-outages-runner`;
    };

    it('ends a run abandoned with an expired lease, with a failure code, without any setup', async () => {
      const schema = await database.freshSchema();
      const deployment = await connectPostgresDeployment({
        connectionString: connectionString(),
        schema,
        migrate: false,
      });
      try {
        // A runner that died (or could not write the end) holding the run.
        await deployment.store.createRun({ runId: 'abandoned' });
        await deployment.store.acquireRun('abandoned', { owner: 'dead-runner', leaseMs: 50 });

        const runner = deployment.startRunner({
          owner: 'live-runner',
          leaseMs: 1_000,
          recovery: { intervalMs: 50 },
        });
        expect(runner.recovery).toBeDefined();
        await vi.waitFor(
          async () => {
            expect(await deployment.store.getRun('abandoned')).toMatchObject({
              status: 'failed',
              failure: { code: 'ownership_lost' },
            });
          },
          { timeout: 30_000, interval: 50 },
        );
      } finally {
        await deployment.close();
      }
    });

    it('runs no loop with recovery: false', async () => {
      const schema = await database.freshSchema();
      const deployment = await connectPostgresDeployment({
        connectionString: connectionString(),
        schema,
        migrate: false,
      });
      try {
        expect(deployment.startRunner({ recovery: false }).recovery).toBeUndefined();
      } finally {
        await deployment.close();
      }
    });
  },
);
