/** A gateway process: serves snapshots and SSE of the runs the runners execute; executes none. */
import { startGateway } from '../../src/scale-out/gateway';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';

const deployment = await connectPostgresDeployment({ schema: process.env.RUNLIGHT_SCHEMA });
const gateway = await startGateway({
  store: deployment.store,
  bus: deployment.bus,
  port: Number(process.env.PORT ?? 0),
  basePath: '/api',
});
console.log(`[gateway] ${gateway.origin}/api/runs/:id(/events)`);
process.send?.({ type: 'ready', origin: gateway.origin });
process.on('SIGTERM', async () => {
  await gateway.close();
  await deployment.close();
  process.exit(0);
});
