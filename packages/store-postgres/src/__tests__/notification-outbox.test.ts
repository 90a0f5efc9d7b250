import type { RunDeltaEvent } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { decodeNotification } from '../bus-notification';
import { NotificationOutbox } from '../notification-outbox';
import type { SqlStatement } from '../sql-client';

function delta(seq: number): RunDeltaEvent {
  return {
    type: 'run-delta',
    runId: 'run-1',
    baseRevision: 2,
    seq,
    chunk: { type: 'text-delta', id: 't', delta: `${'x'.repeat(900)} ${seq}` },
  };
}

describe('NotificationOutbox', () => {
  it('sends a burst that needs many payloads in one round trip, in publish order', async () => {
    const statements: SqlStatement[] = [];
    // Each round trip takes a turn of the event loop, as on a busy process.
    const sql = {
      query: async <Row extends object>(statement: SqlStatement): Promise<Row[]> => {
        statements.push(statement);
        await new Promise((resolve) => setImmediate(resolve));
        return [];
      },
    };
    const outbox = new NotificationOutbox({
      sql,
      channel: 'events',
      liveDeltas: 'deltas',
      instanceId: 'a',
      maxPayloadBytes: 7_900,
      onError: (error) => {
        throw error;
      },
    });
    for (let seq = 1; seq <= 400; seq++) outbox.send({ kind: 'delta', event: delta(seq) });
    await outbox.flushed();

    const payloads = statements.flatMap(
      (statement) => (statement.values ?? []).slice(1) as string[],
    );
    expect(payloads.length).toBeGreaterThan(40); // ~8 deltas fit in a payload
    // The first delta leaves at once; the 399 sent meanwhile go together.
    expect(statements).toHaveLength(2);
    expect(statements.every((statement) => statement.values?.[0] === 'events')).toBe(true);
    const seqs = payloads.flatMap((payload) => {
      const decoded = decodeNotification(payload);
      if (!decoded.ok) throw decoded.error;
      return decoded.messages.map((message) => (message.kind === 'delta' ? message.event.seq : -1));
    });
    expect(seqs).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
  });
});
