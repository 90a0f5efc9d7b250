/**
 * Issue 11 benchmark: what an answer's checkpoints write, today's append-only scheme beside the
 * whole-message scheme it replaced, in one process run.
 *
 *   npx vitest bench --run --project runtime append-checkpoints   (part of `pnpm bench`)
 *
 * 1. Writes, bytes passed to the driver (records + events as JSON) and bytes ÷ final message
 *    for 2,000 and 20,000 tokens at the default cadence. The whole-message scheme is computed in
 *    the same run: at every write of the same run it would have stored the materialised message
 *    in the record and, for each assistant write, again in its `assistant-checkpoint` event.
 * 2. Snapshot read time for a 20,000-token answer (materialised from its last consolidation
 *    and the appends after it) beside a whole-message record load (parse + copy of the message),
 *    as Vitest bench entries.
 */
import type { DurableRunEvent, UIMessage } from '@runlight/protocol';
import { bench, describe } from 'vitest';
import { assembleMessage } from '../src/assembly/assistant-assembler';
import type { AgentRuntimeDriver } from '../src/store/driver/driver';
import { createMemoryDriver } from '../src/store/driver/memory-driver';
import { evolveRun } from '../src/store/log/evolve-run';
import { unpackStoredEvent } from '../src/store/log/packed-event';
import type { StoredRun } from '../src/store/log/stored-run';
import { measureLongAnswer } from '../src/test-kit/index';

/** Wraps `inner` and computes what the whole-message scheme would have written. */
function wholeMessageShadow(inner: AgentRuntimeDriver) {
  const shadow = { writes: 0, bytes: 0 };
  let message: UIMessage | null = null;
  let messageBytes = 0;
  let record: StoredRun | null = null;
  const driver: AgentRuntimeDriver = {
    load: (runId) => inner.load(runId),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (options) => inner.findExpiredRuns(options),
    async compareAndSet(runId, expected, next, stored, head) {
      const written = await inner.compareAndSet(runId, expected, next, stored, head);
      if (!written) return false;
      // The whole-message scheme wrote the whole record with every write: fold it.
      const events = stored.map((event) => unpackStoredEvent(runId, event) as DurableRunEvent);
      for (const event of events) record = evolveRun(record, event);
      let assistantWrite = false;
      for (const event of events) {
        if (event.type === 'assistant-checkpoint') {
          message = event.checkpoint.message;
          assistantWrite = true;
        } else if (event.type === 'assistant-append') {
          message ??= { id: event.messageId, role: 'assistant', parts: [] };
          message = await assembleMessage(message, event.chunks);
          assistantWrite = true;
        }
      }
      if (assistantWrite) messageBytes = JSON.stringify(message).length;
      const { assistant: _pointer, ...rest } = record!;
      const envelope = (event: DurableRunEvent) =>
        event.type === 'assistant-append' || event.type === 'assistant-checkpoint'
          ? 180 + messageBytes // type, runId, revision, at, lease, checkpoint.revision + message
          : JSON.stringify(event).length;
      shadow.writes++;
      shadow.bytes +=
        JSON.stringify(rest).length +
        (messageBytes > 0 ? messageBytes + 30 : 16) +
        events.reduce((sum, event) => sum + envelope(event), 0);
      return true;
    },
  };
  return { driver, shadow };
}

const results: Record<number, Awaited<ReturnType<typeof measureLongAnswer>>> = {};

async function writeTable() {
  const rows = [];
  for (const tokens of [200, 2_000, 20_000]) {
    const { driver, shadow } = wholeMessageShadow(createMemoryDriver());
    const measured = await measureLongAnswer(driver, tokens);
    results[tokens] = measured;
    const { counts, finalBytes } = measured;
    rows.push(
      {
        tokens,
        scheme: 'whole message (before)',
        writes: shadow.writes,
        'bytes written': shadow.bytes,
        'final message bytes': finalBytes,
        'bytes / final': (shadow.bytes / finalBytes).toFixed(1),
      },
      {
        tokens,
        scheme: 'append-only (now)',
        writes: counts.writes,
        'bytes written': counts.bytes,
        'final message bytes': finalBytes,
        'bytes / final': (counts.bytes / finalBytes).toFixed(1),
        'assistant events / final': (counts.assistantBytes / finalBytes).toFixed(2),
        'records / final': (counts.recordBytes / finalBytes).toFixed(2),
        snapshots: counts.snapshots,
        'max record bytes': counts.maxRecordBytes,
      },
    );
  }
  console.log('\nAssistant checkpoints at the default cadence (32), memory driver');
  console.table(rows);
}

describe('snapshot read of a 20,000-token answer', async () => {
  await writeTable();
  const { store } = results[20_000]!;
  const message = (await store.getSnapshot('long-20000')).assistant!.message;
  const wholeRecord = JSON.stringify({ record: { run: {}, assistant: { message, revision: 1 } } });

  bench('store.getSnapshot: last consolidation + appends (now)', async () => {
    await store.getSnapshot('long-20000');
  });

  bench('whole-message record: parse + copy (before, baseline)', () => {
    structuredClone(JSON.parse(wholeRecord));
  });
});
