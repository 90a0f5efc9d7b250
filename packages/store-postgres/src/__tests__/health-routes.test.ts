import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { RunEventHub, type RunEventSourceHealth } from '@runlight/runtime';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../migrate';
import { type Gateway, startGateway } from '../scale-out/gateway';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

/** A bus that is `health` (an in-process hub: no connection to lose). */
const busThatIs = (health: RunEventSourceHealth) =>
  Object.assign(new RunEventHub(), { health: () => health, close: async () => {} });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const get = async (gateway: Gateway, path: string, method = 'GET') => {
  const response = await fetch(`${gateway.origin}${path}`, { method });
  return { status: response.status, body: await response.json() };
};

describe('the probes of a deployment process: /health and /ready', () => {
  it('says the store is unreachable when the database does not answer (a pool on a closed port), while /health stays 200', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'nobody' });
    pool.on('error', () => {});
    const deployment = await connectPostgresDeployment({
      pool,
      migrate: false,
      bus: async () => busThatIs('live'),
    });
    const gateway = await startGateway({ ...deployment, basePath: '/api', authorize: 'public' });
    try {
      expect(await get(gateway, '/ready')).toEqual({
        status: 503,
        body: { ready: false, reason: 'store_unreachable' },
      });
      expect(await get(gateway, '/health')).toEqual({ status: 200, body: { status: 'ok' } });
      // At the root whatever the base path; a probe is a GET.
      expect((await get(gateway, '/api/health')).status).toBe(404);
      expect((await get(gateway, '/ready', 'POST')).status).toBe(405);
    } finally {
      await gateway.close();
      await deployment.close();
      await pool.end();
    }
  });

  it('without a deployment, answers from the bus alone; `closing` once the gateway closes', async () => {
    const bus = busThatIs('deaf');
    const gateway = await startGateway({
      store: {
        getSnapshot: async () => {
          throw new Error('unused');
        },
      } as never,
      bus,
      authorize: 'public',
    });
    expect(await get(gateway, '/ready')).toEqual({
      status: 503,
      body: { ready: false, reason: 'bus_deaf' },
    });
    await gateway.close();
  });
});

describe.runIf(serverUnavailable === null)(`/ready on a real database (${serverLabel})`, () => {
  const schema = `rl_ready_${process.pid}_${randomBytes(3).toString('hex')}`;
  let admin: pg.Pool;
  beforeAll(async () => {
    admin = new pg.Pool({ ...serverPoolConfig(), max: 2 });
    admin.on('error', () => {});
    await migrate(admin, { schema });
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('is 200 while the store answers and the bus listens, 503 `closing` once the deployment closes', async () => {
    const config = serverPoolConfig();
    const deployment = await connectPostgresDeployment({
      connectionString: `postgres://${config.user}@${config.host}:${config.port}/${config.database}`,
      schema,
      migrate: false,
    });
    const gateway = await startGateway({ ...deployment, authorize: 'public' });
    try {
      expect(await get(gateway, '/ready')).toEqual({ status: 200, body: { ready: true } });
      expect(deployment.bus.health()).toBe('live');
      await deployment.close();
      expect(await get(gateway, '/ready')).toEqual({
        status: 503,
        body: { ready: false, reason: 'closing' },
      });
    } finally {
      await gateway.close();
      await deployment.close();
    }
  });
});
