import { type DriverRunEvent, storedEventHead, storedRevisionOf } from '../log/packed-event';
import type { StoredRun } from '../log/stored-run';
import type {
  AgentRuntimeDriver,
  StoredControlRequest,
  StoredRunInput,
  StoredStaleControlRequest,
} from './driver';

interface Entry {
  snapshot: StoredRun | null;
  events: DriverRunEvent[];
  /** The head: the last event's revision and lease expiry (the snapshot's without events). */
  revision: number;
  leaseExpiresAt: string | null;
  /** The run ended (its last status change is terminal). */
  ended: boolean;
  /** The time of its last write (the last event's, or the snapshot's). */
  updatedAt: string;
}

interface ControlEntry {
  request: StoredControlRequest;
  /** When it was claimed (`markControlRequestDone`); null while pending. */
  claimedAt: string | null;
  applied: boolean;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The embedded default driver. It stores copies: mutating an object passed in or returned
 * changes nothing stored.
 *
 * @example
 * const store = createAgentRuntimeStore(createMemoryDriver());
 */
export function createMemoryDriver(): AgentRuntimeDriver {
  const runs = new Map<string, Entry>();
  /** Control requests by run, then request id (insertion order: oldest first). */
  const control = new Map<string, Map<string, ControlEntry>>();
  /** Run inputs by run id, and the run ids of each chat. */
  const inputs = new Map<string, StoredRunInput>();
  const chats = new Map<string, string[]>();

  const driver: AgentRuntimeDriver = {
    async load(runId) {
      const snapshot = runs.get(runId)?.snapshot;
      return snapshot ? structuredClone(snapshot) : null;
    },
    async compareAndSet(runId, expectedRevision, snapshot, events, expectedHead) {
      const entry = runs.get(runId);
      if ((entry ? entry.revision : null) !== expectedRevision) return false;
      if (expectedHead !== undefined) {
        // The head event must still be the one the store wrote (see `AgentRuntimeDriver`).
        const head = entry?.events.at(-1);
        if (
          !head ||
          storedRevisionOf(head) !== expectedRevision ||
          JSON.stringify(head) !== expectedHead
        ) {
          return false;
        }
      }
      const heads = events.map(storedEventHead);
      const last = heads.at(-1);
      const copies = structuredClone(events) as DriverRunEvent[];
      const next: Entry = entry ?? {
        snapshot: null,
        events: [],
        revision: 0,
        leaseExpiresAt: null,
        ended: false,
        updatedAt: new Date(0).toISOString(),
      };
      next.events.push(...copies);
      if (snapshot) next.snapshot = structuredClone(snapshot);
      for (const head of heads) {
        if (head.status !== null) next.ended = TERMINAL.has(head.status);
      }
      if (!last && snapshot) next.ended = TERMINAL.has(snapshot.run.status);
      if (last) {
        next.updatedAt = last.at;
        next.revision = last.revision;
        next.leaseExpiresAt = last.leaseExpiresAt;
      } else if (snapshot) {
        next.updatedAt = snapshot.run.updatedAt;
        next.revision = snapshot.run.revision;
        next.leaseExpiresAt = snapshot.lease?.expiresAt ?? null;
      }
      runs.set(runId, next);
      return true;
    },
    async readEvents(runId, afterRevision) {
      const events = runs.get(runId)?.events ?? [];
      // Revisions are dense from 1, so the event after `afterRevision` sits at that index.
      const start = Math.max(0, Math.min(events.length, afterRevision));
      const first = events[start];
      const revision = storedRevisionOf;
      const aligned = first === undefined || revision(first) === afterRevision + 1;
      const tail = aligned
        ? events.slice(start)
        : events.filter((e) => revision(e) > afterRevision);
      return structuredClone(tail);
    },
    async findExpiredRuns({ now, limit }) {
      // A scan: the embedded store holds one process's runs; a database driver uses an index.
      const cutoff = Date.parse(now);
      const expired: { runId: string; leaseExpiresAt: string }[] = [];
      for (const [runId, { leaseExpiresAt }] of runs) {
        if (leaseExpiresAt !== null && Date.parse(leaseExpiresAt) <= cutoff) {
          expired.push({ runId, leaseExpiresAt });
        }
      }
      expired.sort(
        (a, b) =>
          Date.parse(a.leaseExpiresAt) - Date.parse(b.leaseExpiresAt) ||
          (a.runId < b.runId ? -1 : 1),
      );
      return expired.slice(0, Math.max(0, limit));
    },
    async appendControlRequest(runId, request) {
      const requests = control.get(runId) ?? new Map();
      control.set(runId, requests);
      if (requests.has(request.requestId)) return false;
      requests.set(request.requestId, {
        request: structuredClone(request),
        claimedAt: null,
        applied: false,
      });
      return true;
    },
    async readControlRequests(runIds) {
      const pending = runIds.flatMap((runId) =>
        [...(control.get(runId)?.values() ?? [])].filter((entry) => entry.claimedAt === null),
      );
      return structuredClone(pending.map((entry) => entry.request));
    },
    async markControlRequestDone(runId, requestId, claimedAt) {
      const entry = control.get(runId)?.get(requestId);
      if (!entry || entry.claimedAt !== null) return false;
      entry.claimedAt = claimedAt ?? new Date().toISOString();
      return true;
    },
    async readStaleControlRequests({ runIds, createdBefore, claimedBefore, limit }) {
      const created = Date.parse(createdBefore);
      const claimed = Date.parse(claimedBefore);
      const stale: ControlEntry[] = [];
      for (const runId of runIds ?? control.keys()) {
        const entry = runs.get(runId);
        if (!entry || entry.ended || (runIds === undefined && entry.leaseExpiresAt !== null)) {
          continue;
        }
        for (const request of control.get(runId)?.values() ?? []) {
          if (request.applied) continue;
          const due =
            request.claimedAt === null
              ? Date.parse(request.request.createdAt) < created
              : Date.parse(request.claimedAt) < claimed;
          if (due) stale.push(request);
        }
      }
      stale.sort((a, b) => Date.parse(a.request.createdAt) - Date.parse(b.request.createdAt));
      return structuredClone(
        stale.slice(0, Math.max(0, limit)).map(
          (entry): StoredStaleControlRequest => ({
            request: entry.request,
            claimedAt: entry.claimedAt,
          }),
        ),
      );
    },
    async reclaimControlRequest(runId, requestId, claimedAt, reclaimedAt) {
      const entry = control.get(runId)?.get(requestId);
      if (!entry || entry.applied || entry.claimedAt !== claimedAt) return false;
      // A claim is never older than the one it replaces, even within one millisecond.
      const later = Date.parse(reclaimedAt) > Date.parse(claimedAt);
      entry.claimedAt = later ? reclaimedAt : new Date(Date.parse(claimedAt) + 1).toISOString();
      return true;
    },
    async deleteEndedControlRequests({ endedBefore, limit }) {
      const cutoff = Date.parse(endedBefore);
      let deleted = 0;
      for (const [runId, requests] of control) {
        const entry = runs.get(runId);
        if (!entry?.ended || Date.parse(entry.updatedAt) >= cutoff) continue;
        if (deleted + requests.size > limit) break;
        deleted += requests.size;
        control.delete(runId);
      }
      return deleted;
    },
    async markControlRequestApplied(runId, requestId) {
      const entry = control.get(runId)?.get(requestId);
      if (entry) entry.applied = true;
    },
    async saveRunInput(runId, input) {
      if (inputs.has(runId)) return false;
      inputs.set(runId, structuredClone(input));
      if (input.chatId !== null)
        chats.set(input.chatId, [...(chats.get(input.chatId) ?? []), runId]);
      return true;
    },
    async readRunInput(runId) {
      const input = inputs.get(runId);
      return input ? structuredClone(input) : null;
    },
    async listChatRuns(chatId, { limit }) {
      const runsOfChat = (chats.get(chatId) ?? []).map((runId) => inputs.get(runId)!);
      runsOfChat.sort(
        (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.runId < b.runId ? 1 : -1),
      );
      return runsOfChat
        .slice(0, Math.max(0, limit))
        .map(({ runId, createdAt }) => ({ runId, createdAt }));
    },
  };
  storedEvents.set(driver, runs);
  return driver;
}

const storedEvents = new WeakMap<AgentRuntimeDriver, Map<string, Entry>>();

/**
 * Test back door (not exported from the package): replaces the stored event of `runId` at
 * `revision` with `value` behind the store's back — a corrupt row, as an operator's `UPDATE`
 * would leave it.
 */
export function corruptMemoryEvent(
  driver: AgentRuntimeDriver,
  runId: string,
  revision: number,
  value: unknown,
): void {
  const events = storedEvents.get(driver)?.get(runId)?.events;
  const index = events?.findIndex((event) => storedRevisionOf(event) === revision) ?? -1;
  if (!events || index < 0) throw new Error(`No stored event ${runId}@${revision}`);
  events[index] = value as DriverRunEvent;
}
