import { describe, expect, it } from 'vitest';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { corruptMemoryEvent, createMemoryDriver } from '../../store/driver/memory-driver';
import { wholeStoredEvent } from '../../store/log/packed-event';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, user } from './harness';

describe('a live run whose latest event row is corrupted (issue 22 item 6)', () => {
  it('stops writing: nothing is appended on top, the run does not complete, a storage code names it', async () => {
    const inner = createMemoryDriver();
    let appends = 0;
    let corruptedAt: number | null = null;
    // After the second assistant append lands, its row is damaged behind the store's back.
    const driver: AgentRuntimeDriver = {
      ...inner,
      async compareAndSet(runId, expected, next, events, head) {
        const written = await inner.compareAndSet(runId, expected, next, events, head);
        const event = events[0] && wholeStoredEvent(events[0]);
        if (written && event?.type === 'assistant-append' && ++appends === 2) {
          corruptedAt = event.revision;
          corruptMemoryEvent(inner, runId, event.revision, {
            type: 'assistant-append',
            revision: event.revision,
            chunks: 'not chunks',
          });
        }
        return written;
      },
    };
    const h = harness({ driver, checkpointEveryEvents: 1 });
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ text: Array.from({ length: 12 }, (_, i) => `word${i} `) }]),
      messages: user('Hi'),
    }).done;

    expect(corruptedAt).not.toBeNull();
    const stored = await inner.readEvents(h.runId, 0);
    // Nothing after the damaged row: it is still the head.
    expect(stored.length).toBe(corruptedAt);
    expect(run.status).not.toBe('completed');
    expect(h.durable().some((e) => e.type === 'run-status' && e.status === 'completed')).toBe(
      false,
    );
    // The execution named its failure with a storage code, logged without the record's text.
    expect(
      h.logs.some(
        (entry) =>
          entry.level === 'error' && /store holds a record it cannot read/.test(entry.message),
      ),
    ).toBe(true);
  });
});
