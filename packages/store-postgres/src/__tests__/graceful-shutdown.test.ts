import { randomBytes } from 'node:crypto';
import type { UIMessage } from '@runlight/protocol';
import { scriptedModel } from '@runlight/runtime/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrate } from '../migrate';
import {
  connectPostgresDeployment,
  type PostgresDeployment,
} from '../scale-out/postgres-deployment';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

const LEASE_MS = 60_000;
const RUNS = ['roll-1', 'roll-2', 'roll-3'];
const aWords = Array.from({ length: 1_000 }, (_, index) => `a${index} `);
const bWords = Array.from({ length: 10 }, (_, index) => `b${index} `);
const messages = [{ role: 'user' as const, content: 'Go' }];
const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * Issue 21 item 8 on the real server: a rolling restart. Runner 1 closes gracefully (what its
 * SIGTERM handler calls) while three runs stream; runner 2's recovery takes them over at once —
 * the lease is 60 s, the test waits 20 s at most — and completes them on the checkpointed text.
 */
describe.runIf(serverUnavailable === null)(`a rolling restart (${serverLabel})`, () => {
  const schema = `rl_shutdown_${process.pid}_${randomBytes(3).toString('hex')}`;
  let admin: pg.Pool;
  const connectionString = (name: string) => {
    const config = serverPoolConfig();
    return `postgres://${config.user}@${config.host}:${config.port}/${config.database}?application_name=rl-shutdown-${name}`;
  };
  beforeAll(async () => {
    admin = new pg.Pool({ ...serverPoolConfig(), max: 2 });
    admin.on('error', () => {});
    await migrate(admin, { schema });
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('hands every streaming run to the next runner, which completes it without waiting for the lease', async () => {
    const connect = (name: string) =>
      connectPostgresDeployment({
        connectionString: connectionString(name),
        schema,
        migrate: false,
      });
    const first: PostgresDeployment = await connect('runner-1');
    const second: PostgresDeployment = await connect('runner-2');
    try {
      const runner1 = first.startRunner({ owner: 'runner-1', leaseMs: LEASE_MS, recovery: false });
      const handles = RUNS.map((runId) =>
        runner1.runtime.startRun({
          runId,
          model: scriptedModel([{ tokenMs: 10, text: aWords }]),
          messages,
        }),
      );
      await Promise.all(handles.map((handle) => handle.created));
      // Every run has streamed (and checkpointed) some text.
      await vi.waitFor(
        async () => {
          for (const runId of RUNS) {
            const snapshot = await first.store.getSnapshot(runId);
            expect(textOf(snapshot.assistant?.message)).toContain('a3 ');
          }
        },
        { timeout: 15_000, interval: 50 },
      );
      const runner2 = second.startRunner({
        owner: 'runner-2',
        leaseMs: LEASE_MS,
        recovery: {
          intervalMs: 100,
          resolveRun: () => ({ model: scriptedModel([{ tokenMs: 2, text: bWords }]), messages }),
        },
      });

      await first.close();
      const handedOff = await Promise.all(handles.map((handle) => handle.done));
      for (const run of handedOff) expect(run).toMatchObject({ status: 'running' });

      await vi.waitFor(
        async () => {
          for (const runId of RUNS) {
            expect(await second.store.getRun(runId)).toMatchObject({
              status: 'completed',
              owner: 'runner-2',
            });
          }
        },
        { timeout: 20_000, interval: 100 },
      );
      for (const runId of RUNS) {
        const events = await second.store.readEvents(runId);
        const handOff = events.findIndex(
          (event) => event.type === 'run-status' && event.change === 'lease-handed-off',
        );
        expect(handOff).toBeGreaterThan(0);
        // The text as runner 1 left it: its last assistant write before the hand-off.
        const lastWrite = events
          .slice(0, handOff)
          .findLast(
            (event) => event.type === 'assistant-checkpoint' || event.type === 'assistant-append',
          );
        expect(lastWrite).toBeDefined();
        const final = await second.store.getSnapshot(runId);
        const finalText = textOf(final.assistant?.message);
        expect(finalText.endsWith(bWords.join(''))).toBe(true);
        const left = finalText.slice(0, finalText.length - bWords.join('').length);
        // Runner 1's text, a prefix of its whole answer, then runner 2's: nothing glued.
        expect(left).toContain('a3 ');
        expect(aWords.join('').startsWith(left)).toBe(true);
        expect(events[handOff + 1]).toMatchObject({
          type: 'run-status',
          change: 'acquired',
          owner: 'runner-2',
        });
      }
      await runner2.close();
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);
});
