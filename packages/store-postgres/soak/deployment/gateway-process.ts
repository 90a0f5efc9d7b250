/**
 * A soak gateway: serves snapshots, SSE and control requests through the soak's proxy, live
 * events from PostgreSQL's bus or Redis's (`SOAK_BUS`, `open-bus.ts`).
 */
import { startGateway } from '../../src/scale-out/gateway';
import { connectSoakDeployment } from './open-bus';

const deployment = await connectSoakDeployment(() => {});
const gateway = await startGateway({
  ...deployment,
  port: 0,
  basePath: '/api',
  onError: () => {},
});
process.send?.({ type: 'ready', origin: gateway.origin });
process.on('SIGTERM', async () => {
  await gateway.close();
  await deployment.close();
  process.exit(0);
});
