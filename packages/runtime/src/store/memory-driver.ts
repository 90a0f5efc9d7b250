import type { DurableRunEvent } from '@runlight/protocol';
import type { AgentRuntimeDriver } from './driver';
import type { StoredRun } from './stored-run';

interface Entry {
  record: StoredRun;
  events: DurableRunEvent[];
}

/**
 * The embedded default driver. It stores copies: mutating an object passed in or returned
 * changes nothing stored.
 *
 * @example
 * const store = createAgentRuntimeStore(createMemoryDriver());
 */
export function createMemoryDriver(): AgentRuntimeDriver {
  const runs = new Map<string, Entry>();

  return {
    async load(runId) {
      const entry = runs.get(runId);
      return entry ? structuredClone(entry.record) : null;
    },
    async compareAndSet(runId, expectedRevision, next, events) {
      const entry = runs.get(runId);
      const storedRevision = entry ? entry.record.run.revision : null;
      if (storedRevision !== expectedRevision) return false;
      const copies = structuredClone(events) as DurableRunEvent[];
      if (entry) {
        entry.record = structuredClone(next);
        entry.events.push(...copies);
      } else {
        runs.set(runId, { record: structuredClone(next), events: copies });
      }
      return true;
    },
    async readEvents(runId, afterRevision) {
      const events = runs.get(runId)?.events ?? [];
      // Revisions are dense from 1, so the event after `afterRevision` sits at that index.
      const start = Math.max(0, Math.min(events.length, afterRevision));
      const first = events[start];
      const aligned = first === undefined || first.revision === afterRevision + 1;
      const tail = aligned ? events.slice(start) : events.filter((e) => e.revision > afterRevision);
      return structuredClone(tail);
    },
    async findExpiredRuns({ now, limit }) {
      // A scan: the embedded store holds one process's runs; a database driver uses an index.
      const cutoff = Date.parse(now);
      const expired: { runId: string; leaseExpiresAt: string }[] = [];
      for (const [runId, { record }] of runs) {
        const expiresAt = record.lease?.expiresAt;
        if (expiresAt !== undefined && Date.parse(expiresAt) <= cutoff) {
          expired.push({ runId, leaseExpiresAt: expiresAt });
        }
      }
      expired.sort(
        (a, b) =>
          Date.parse(a.leaseExpiresAt) - Date.parse(b.leaseExpiresAt) ||
          (a.runId < b.runId ? -1 : 1),
      );
      return expired.slice(0, Math.max(0, limit));
    },
  };
}
