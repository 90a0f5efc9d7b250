import type { Options } from './fanout';
import { fixed } from './figures';
import { postgresFixture } from './postgres-fixture';
import { type Child, spawnServer, stopChildren, tell } from './server-children';
import type { ServerMessage } from './slot-schedule';
import { WatcherPool } from './watcher-pool';

type Mode = Options['modes'][number];

/** Spawns `mode`'s servers with quiet runs (created, never started). */
async function spawnQuiet(mode: Mode, options: Options, current: number[]) {
  const { workload, backlog } = options;
  const children: Child[] = [];
  let fixture: Awaited<ReturnType<typeof postgresFixture>> | null = null;
  if (mode === 'gateways') {
    fixture = await postgresFixture();
    const postgres = { connectionString: fixture.connectionString, schema: fixture.schema };
    children.push(
      await spawnServer({ role: 'runner', workload, backlog, postgres, quiet: true }, current),
    );
    for (let i = 0; i < options.gateways; i++) {
      children.push(
        await spawnServer({ role: 'gateway', workload, backlog, postgres, quiet: true }, current),
      );
    }
  } else {
    const role = mode === 'hub-batched' ? 'hub' : mode === 'runtime-batched' ? 'runtime' : mode;
    children.push(await spawnServer({ role, workload, backlog, quiet: true }, current));
  }
  return { children, fixture };
}

/**
 * The memory of idle watchers: `count` watchers on the quiet runs of a fresh server; RSS and
 * heap of the serving processes after a full GC, before and after, per watcher connected.
 */
export async function measureIdle(mode: Mode, count: number, options: Options) {
  const current: number[] = [];
  const { children, fixture } = await spawnQuiet(mode, options, current);
  const serving = children.filter((child) => child.port !== null);
  const probe = async () => {
    const replies = await Promise.all(
      serving.map(async (child) => {
        const reply = child.next('probe');
        tell(child, { type: 'probe' });
        return (await reply) as Extract<ServerMessage, { type: 'probe' }>;
      }),
    );
    return {
      rss: replies.reduce((sum, reply) => sum + reply.rss, 0),
      heap: replies.reduce((sum, reply) => sum + reply.heapUsed, 0),
    };
  };
  const pool = new WatcherPool(
    serving.map((child) => child.port!),
    options.workload.slots,
    current,
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = await probe();
    const join = await pool.join(count, options.joinTimeoutMs);
    // Let the catch-ups finish and their garbage become collectable.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await probe();
    const connected = pool.connected;
    const label = mode === 'gateways' ? `${options.gateways} gateways` : mode;
    return {
      mode: label,
      watchers: count,
      connected,
      'connect all s': join.all
        ? (join.ms / 1000).toFixed(1)
        : `not in ${(join.ms / 1000).toFixed(0)}`,
      'RSS before → after MB': `${fixed(before.rss / 2 ** 20)} → ${fixed(after.rss / 2 ** 20)}`,
      'RSS KB/idle watcher': fixed((after.rss - before.rss) / 1024 / connected, 1),
      'heap KB/idle watcher': fixed((after.heap - before.heap) / 1024 / connected, 1),
    };
  } finally {
    pool.close();
    await stopChildren(children);
    await fixture?.close();
  }
}
