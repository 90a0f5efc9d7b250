import { randomBytes } from 'node:crypto';

/** `DATABASE_URL`, else the test server the store-postgres suites use. */
export const BENCH_DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh, migrated schema on the benchmark's PostgreSQL for the runner + gateways mode;
 * `close` drops it.
 */
export async function postgresFixture() {
  const { connectPostgresDeployment } = await import(
    '../../../store-postgres/src/scale-out/postgres-deployment'
  );
  const schema = `rl_fanout_${process.pid}_${randomBytes(3).toString('hex')}`;
  const deployment = await connectPostgresDeployment({
    connectionString: BENCH_DATABASE_URL,
    schema,
  });
  return {
    connectionString: BENCH_DATABASE_URL,
    schema,
    async close() {
      await deployment.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await deployment.close();
    },
  };
}
