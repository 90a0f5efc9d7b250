/**
 * Issue 11 benchmark: PostgreSQL table size (`pg_total_relation_size` of the Runlight tables)
 * after 100 runs, on PGlite, append-only checkpoints beside the whole-message scheme.
 *
 *   npx vitest bench --run --project store-postgres append-table-size   (part of `pnpm bench`)
 *
 * One real run per answer length (runtime, scripted model, default cadence) is recorded on the
 * memory driver; its mutations are then replayed through the store onto PostgreSQL, 100 times.
 * The whole-message scheme replays the same mutations with every assistant write as a whole
 * message (what every checkpoint wrote before); at 20,000 tokens it is replayed for one run
 * and multiplied by 100 (100 runs would write ~6 GB). `BENCH_PG_RUNS` changes the run count.
 * The whole-message figure is a lower bound of the scheme it replaced: each whole message is
 * stored once, in its event, where the old driver also rewrote it into `run_assistants`.
 * PostgreSQL compresses large `json` values (TOAST), which flatters the whole messages.
 */
import { PGlite } from '@electric-sql/pglite';
import type { DurableRunEvent, UIMessage } from '@runlight/protocol';
import {
  type AgentRuntimeStore,
  createAgentRuntimeStore,
  createMemoryDriver,
} from '@runlight/runtime';
import { OwnedRun } from '@runlight/runtime/driver';
import { measureLongAnswer } from '@runlight/runtime/test-kit';
import { bench, describe } from 'vitest';
import { migrate, runlightTables } from '../src/migrate';
import { createPostgresDriver } from '../src/postgres-driver';
import { toSqlClient } from '../src/sql-client';

const RUNS = Number(process.env.BENCH_PG_RUNS ?? 100);

async function recordedRun(tokens: number) {
  const { store } = await measureLongAnswer(createMemoryDriver(), tokens, 'recorded');
  const events = await store.readEvents('recorded');
  // The materialised message at every assistant write, for the whole-message replay: replay
  // into a shadow store one event at a time and read its snapshot after each assistant write.
  const messages = new Map<number, UIMessage>();
  const shadow = createAgentRuntimeStore(createMemoryDriver());
  await replay(shadow, 'shadow', events, null, async (event) => {
    if (event.type === 'assistant-append' || event.type === 'assistant-checkpoint') {
      messages.set(event.revision, (await shadow.getSnapshot('shadow')).assistant!.message);
    }
  });
  return { events, messages };
}

/** Replays a recorded run's mutations; `whole` turns every assistant write into a whole message. */
async function replay(
  store: AgentRuntimeStore,
  runId: string,
  events: readonly DurableRunEvent[],
  whole: Map<number, UIMessage> | null,
  after?: (event: DurableRunEvent) => Promise<void>,
) {
  await store.createRun({ runId });
  const owned = new OwnedRun(store, await store.acquireRun(runId, { owner: 'w', leaseMs: 60_000 }));
  for (const event of events) {
    if (event.revision <= 2) continue;
    if (event.type === 'run-operation') await owned.recordRunOperation(event.operation);
    else if (
      event.type === 'assistant-checkpoint' ||
      (whole && event.type === 'assistant-append')
    ) {
      const message =
        event.type === 'assistant-checkpoint'
          ? event.checkpoint.message
          : whole!.get(event.revision)!;
      await owned.saveAssistantCheckpoint(message);
    } else if (event.type === 'assistant-append') {
      await owned.appendAssistant({
        messageId: event.messageId,
        baseRevision: event.baseRevision,
        chunks: event.chunks,
      });
    } else if (event.type === 'run-status' && event.change === 'completed') {
      await owned.commitTerminal({ status: 'completed' });
    }
    await after?.(event);
  }
}

async function tableBytes(db: PGlite, schema: string): Promise<number> {
  const tables = runlightTables({ schema });
  const sql = toSqlClient(db);
  let total = 0;
  for (const table of [tables.runs, tables.assistants, tables.events, tables.liveDeltas]) {
    const [row] = await sql.query<{ size: string }>({
      text: `SELECT pg_total_relation_size('${table}')::text AS size`,
    });
    total += Number(row!.size);
  }
  return total;
}

async function sizeAfter(
  db: PGlite,
  schema: string,
  recorded: Awaited<ReturnType<typeof recordedRun>>,
  runs: number,
  whole: boolean,
) {
  await migrate(db, { schema });
  const store = createAgentRuntimeStore(createPostgresDriver({ client: db, schema }));
  for (let run = 0; run < runs; run++) {
    await replay(store, `run-${run}`, recorded.events, whole ? recorded.messages : null);
  }
  return tableBytes(db, schema);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

describe('PostgreSQL table size after 100 runs (PGlite)', async () => {
  const db = await PGlite.create();
  const rows = [];
  for (const tokens of [2_000, 20_000]) {
    const recorded = await recordedRun(tokens);
    const appendOnly = await sizeAfter(db, `rl_size_a_${tokens}`, recorded, RUNS, false);
    const wholeRuns = tokens >= 20_000 ? 1 : RUNS;
    const wholeMessage =
      ((await sizeAfter(db, `rl_size_w_${tokens}`, recorded, wholeRuns, true)) * RUNS) / wholeRuns;
    rows.push({
      tokens,
      runs: RUNS,
      'whole message MB': `${mb(wholeMessage)}${wholeRuns === RUNS ? '' : ` (1 run × ${RUNS})`}`,
      'append-only MB': mb(appendOnly),
      'whole ÷ append': (wholeMessage / appendOnly).toFixed(1),
    });
  }
  console.log('\nRunlight tables, pg_total_relation_size, PGlite');
  console.table(rows);
  await db.close();

  bench('table sizes are printed above', () => {});
});
