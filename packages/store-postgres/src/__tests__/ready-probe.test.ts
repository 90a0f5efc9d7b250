import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';
import { sharedProbe } from '../scale-out/readiness';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

describe('sharedProbe: one store query for many /ready hits', () => {
  it('concurrent hits share the query in flight; an answer is reused for maxAgeMs, then asked again', async () => {
    let clock = 0;
    let calls = 0;
    let release!: () => void;
    const probe = sharedProbe(
      () => {
        calls++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { maxAgeMs: 1_000, now: () => clock },
    );
    const hits = Array.from({ length: 500 }, () => probe());
    expect(calls).toBe(1);
    clock = 5_000; // however long it takes, a query in flight is not started again
    expect(probe()).toBe(hits[0]);
    release();
    await Promise.all(hits);
    clock = 5_999;
    await probe();
    expect(calls).toBe(1);
    clock = 6_000;
    const next = probe();
    expect(calls).toBe(2);
    release();
    await next;
  });
});

describe.runIf(serverUnavailable === null)(`deployment.ready() on ${serverLabel}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openServer();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('1,000 concurrent readiness checks run one SELECT 1 on the shared pool (it ran 1,000)', async () => {
    const schema = await database.freshSchema();
    const pool = new pg.Pool({ ...serverPoolConfig(), max: 4 });
    const deployment = await connectPostgresDeployment({ pool, schema, migrate: false });
    try {
      let probes = 0;
      const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
      (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (
        ...args: unknown[]
      ) => {
        if (args[0] === 'SELECT 1') probes++;
        return query(...args);
      };
      const answers = await Promise.all(Array.from({ length: 1_000 }, () => deployment.ready()));
      expect(answers.every((answer) => answer.ready)).toBe(true);
      expect(probes).toBe(1);
    } finally {
      await deployment.close();
      await pool.end();
    }
  });
});
