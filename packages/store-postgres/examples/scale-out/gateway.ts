/** A gateway process: serves snapshots and SSE of the runs the runners execute; executes none. */
import { startGateway } from '../../src/scale-out/gateway';
import { connectPostgresDeployment } from '../../src/scale-out/postgres-deployment';

// A local example: every run is open on purpose (a deployment passes its `authorize` policy).
const deployment = await connectPostgresDeployment({
  schema: process.env.RUNLIGHT_SCHEMA,
  authorize: 'public',
});
const gateway = await startGateway({
  ...deployment, // store, bus and the deployment's access policy
  port: Number(process.env.PORT ?? 0),
  basePath: '/api',
});
console.log(`[gateway] ${gateway.origin}/api/runs/:id(/events)`);
process.send?.({ type: 'ready', origin: gateway.origin });
const shutdown = async () => {
  await gateway.close();
  await deployment.close();
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
