/**
 * A soak gateway: serves snapshots, SSE and control requests through the soak's proxy, live
 * events from PostgreSQL's bus or Redis's (`SOAK_BUS`, `open-bus.ts`).
 */
import { startGateway } from '../../src/scale-out/gateway';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';
import { openSoakBus } from './open-bus';

const deployment = await connectPostgresDeployment({
  connectionString: process.env.DATABASE_URL,
  schema: process.env.RUNLIGHT_SCHEMA ?? 'runlight_soak',
  migrate: false,
  onError: () => {},
});
const { bus, close: closeBus } = await openSoakBus(deployment, () => {});
const gateway = await startGateway({
  store: deployment.store,
  bus,
  port: 0,
  basePath: '/api',
  authorize: 'public',
  onError: () => {},
});
process.send?.({ type: 'ready', origin: gateway.origin });
process.on('SIGTERM', async () => {
  await gateway.close();
  await closeBus();
  await deployment.close();
  process.exit(0);
});
