import {
  AccessPolicyError,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntimeStore,
  createMemoryDriver,
  RunEventHub,
} from '@runlight/runtime';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayOptions, startGateway } from '../scale-out/gateway';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Only `Bearer good` may read; everything else is 401. */
const bearer: Authorize = ({ request }) =>
  request.headers.get('authorization') === 'Bearer good'
    ? true
    : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });

async function gateway(
  options: Omit<GatewayOptions, 'store' | 'bus'> & { store?: AgentRuntimeStore },
) {
  const store = options.store ?? createAgentRuntimeStore(createMemoryDriver());
  await store.createRun({ runId: 'run-1' });
  const started = await startGateway({ bus: new RunEventHub(), ...options, store });
  cleanups.push(() => started.close());
  return started;
}

const as = (token: string | null, extra: Record<string, string> = {}) => ({
  headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra },
});

describe('startGateway: the same access policy and CORS as the router', () => {
  it('authorize guards the snapshot and the event stream', async () => {
    const { origin } = await gateway({ authorize: bearer });
    expect((await fetch(`${origin}/runs/run-1`, as(null))).status).toBe(401);
    expect((await fetch(`${origin}/runs/run-1/events`, as('bad'))).status).toBe(401);
    expect((await fetch(`${origin}/runs/run-1`, as('good'))).status).toBe(200);
    const events = await fetch(`${origin}/runs/run-1/events`, as('good'));
    expect(events.status).toBe(200);
    await events.body?.cancel();
  });

  it('no policy, no gateway: a deployment made without authorize rejects with AccessPolicyError', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const started = startGateway({ store, bus: new RunEventHub(), authorize: undefined });
    await expect(started).rejects.toSatisfy(
      (error) => AccessPolicyError.isInstance(error) && error.problem === 'missing',
    );
  });

  it('cors answers a preflight from the allowed origin and marks the responses', async () => {
    const { origin } = await gateway({
      authorize: bearer,
      cors: { origin: 'https://app.example' },
    });
    const preflight = await fetch(`${origin}/runs/run-1/events`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const snapshot = await fetch(
      `${origin}/runs/run-1`,
      as('good', { origin: 'https://app.example' }),
    );
    expect(snapshot.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});

describe.runIf(serverUnavailable === null)(serverLabel, () => {
  it('connectPostgresDeployment({ authorize }) hands the policy on: startGateway({ ...deployment })', async () => {
    const pool = new pg.Pool({ ...serverPoolConfig(), max: 2 });
    cleanups.push(() => pool.end());
    const schema = `rl_access_${process.pid}_${Date.now()}`;
    const deployment = await connectPostgresDeployment({ pool, schema, authorize: bearer });
    cleanups.push(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    });
    cleanups.push(() => deployment.close());
    expect(deployment.authorize).toBe(bearer);
    const { origin } = await gateway({ ...deployment });
    expect((await fetch(`${origin}/runs/run-1`, as(null))).status).toBe(401);
    expect((await fetch(`${origin}/runs/run-1`, as('good'))).status).toBe(200);
  });
});
