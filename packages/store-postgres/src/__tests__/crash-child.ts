/**
 * Instance A of the crash test, in its own process: it executes one run over the shared
 * database until the parent kills it. Arguments: a JSON object { pool, schema, runId, leaseMs }.
 */
import { createAgentRuntime, createAgentRuntimeStore } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount } from 'ai';
import pg from 'pg';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus } from '../postgres-event-bus';
import { crashTools, longAnswer } from './crash-script';

const { pool: poolConfig, schema, runId, leaseMs } = JSON.parse(process.argv[2]!);
const pool = new pg.Pool(poolConfig);
const store = createAgentRuntimeStore(createPostgresDriver({ client: pool, schema }));
const events = await createPostgresEventBus({ pool, schema, channel: `${schema}_events` });
const logs: string[] = [];
const runtime = createAgentRuntime({
  store,
  events,
  owner: 'instance-a',
  leaseMs,
  onLog: (entry) => logs.push(`${entry.level}: ${entry.message}`),
});
const model = scriptedModel([
  { toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }] },
  { toolCalls: [{ toolName: 'weather', input: { city: 'Rome' } }] },
  { tokenMs: 40, text: longAnswer }, // killed while this streams
]);
const run = await runtime.startRun({
  runId,
  model,
  messages: [{ role: 'user', content: 'Weather in Oslo and Rome?' }],
  tools: crashTools,
  stopWhen: isStepCount(5),
}).done;
// Only a paused-and-woken instance gets here: it reports how it left the run and exits.
process.stdout.write(`${JSON.stringify({ run, logs })}\n`);
await events.close();
await pool.end();
