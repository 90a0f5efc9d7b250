/**
 * One process of `pnpm bench:latency` (forked by `latency.ts`; argv[2] is a JSON `LatencyChildConfig`):
 * - `runner`: a deployment runner (the real runtime: admission, checkpoints, the store and the
 *   bus) executing runs on a model that streams `tokens` text deltas `tokenMs` apart, each
 *   delta's text the runner's clock when the model yielded it;
 * - `gateway`: `startGateway` on the same deployment, serving `GET /api/runs/:id/events`.
 */
import { createRedisEventBus } from '@runlight/bus-redis';
import type { AgentRuntimeStore } from '@runlight/runtime';
import { connectPostgresDeployment, startGateway } from '@runlight/store-postgres';
import { MockLanguageModelV3 } from 'ai/test';

export interface LatencyChildConfig {
  role: 'runner' | 'gateway';
  bus: 'postgres' | 'redis';
  schema: string;
  redisUrl: string;
  keyPrefix: string;
  /** The runner's `checkpointEveryEvents` (default: the runtime's). */
  checkpointEveryEvents?: number;
}

export type ToLatencyChild =
  | { type: 'create'; runIds: string[] }
  | { type: 'run'; runIds: string[]; tokens: number; tokenMs: number }
  | { type: 'close' };

const config = JSON.parse(process.argv[2]!) as LatencyChildConfig;
const send = (message: object) => process.send!(message);
const now = () => performance.timeOrigin + performance.now();

const deployment = await connectPostgresDeployment({
  schema: config.schema,
  authorize: 'public',
  ...(config.bus === 'redis'
    ? {
        bus: (store: AgentRuntimeStore) =>
          createRedisEventBus({ url: config.redisUrl, keyPrefix: config.keyPrefix, store }),
      }
    : {}),
});

/** A model that writes `tokens` deltas `tokenMs` apart; each delta is its own send time. */
function timedModel(tokens: number, tokenMs: number) {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (let n = 0; n < tokens; n++) {
            await new Promise((resolve) => setTimeout(resolve, tokenMs));
            controller.enqueue({ type: 'text-delta', id: 't', delta: `${now().toFixed(3)} ` });
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: tokens, text: tokens, reasoning: 0 },
            },
          });
          controller.close();
        },
      }),
    }),
  });
}

if (config.role === 'gateway') {
  const gateway = await startGateway({ ...deployment, port: 0, basePath: '/api' });
  send({ type: 'ready', origin: gateway.origin });
  process.on('message', async (message: ToLatencyChild) => {
    if (message.type !== 'close') return;
    await gateway.close();
    await deployment.close();
    process.exit(0);
  });
} else {
  const { runtime } = deployment.startRunner({
    owner: `latency-runner-${process.pid}`,
    recovery: false,
    ...(config.checkpointEveryEvents
      ? { checkpointEveryEvents: config.checkpointEveryEvents }
      : {}),
  });
  send({ type: 'ready' });
  process.on('message', async (message: ToLatencyChild) => {
    if (message.type === 'create') {
      await Promise.all(message.runIds.map((runId) => deployment.store.createRun({ runId })));
      send({ type: 'created' });
    } else if (message.type === 'run') {
      const runs = message.runIds.map(
        (runId) =>
          runtime.startRun({
            runId,
            model: timedModel(message.tokens, message.tokenMs),
            messages: [{ role: 'user', content: 'Hi' }],
          }).done,
      );
      const ended = await Promise.all(runs);
      send({ type: 'ran', statuses: ended.map((run) => run.status) });
    } else if (message.type === 'close') {
      await deployment.close();
      process.exit(0);
    }
  });
}
