import {
  type AgentRun,
  type DurableRunEvent,
  type FailureCode,
  isTerminalStatus,
  type RunEvent,
} from '@runlight/protocol';
import { FencingError } from '../../../errors/fencing-error';
import { InvalidTransitionError } from '../../../errors/invalid-transition-error';
import { StoreConflictError } from '../../../errors/store-conflict-error';
import { StoreUnavailableError } from '../../../errors/store-unavailable-error';
import type { AgentRuntimeStore } from '../../../store/agent-runtime-store';
import { deltaViolations } from './delta-invariants';
import { type Schedule, SECRET } from './schedule';
import type { InjectedFaults, LandedWrite } from './sim-driver';

/** How one schedule's handles settled and what the world did to the run. */
export interface Outcome {
  handles: Promise<{ name: 'a' | 'b'; run: AgentRun | undefined; error: unknown }>[];
  cancelled: boolean;
  theft: boolean;
  paused: boolean;
  compactionThrew: () => boolean;
}

const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

/** The failure codes the faults of `schedule` may explain: each names the fault's owner. */
function explainedCodes(
  schedule: Schedule,
  faults: InjectedFaults,
  outcome: Outcome,
  storeAttempts: number,
) {
  const codes = new Set<FailureCode>();
  const providerFault = schedule.steps.some(
    (step) => step.error !== undefined && !(step.error.at === 'request' && step.error.status),
  );
  if (providerFault) codes.add('provider_failure');
  if (faults.conflicts > 0) codes.add('storage_conflict');
  if (faults.densest >= storeAttempts) codes.add('storage_unavailable');
  if (outcome.compactionThrew()) codes.add('compaction_failure');
  return codes;
}

/**
 * The invariants of the issue, checked after one schedule against the healed store:
 * exactly one terminal state (unless paused for approval or left by an outage longer than the
 * retry budget, for the lease to expire); the failure code names the owner of an injected
 * fault; the event log equals what the runtimes published (no gap, no duplicate, in order);
 * no write landed under an older fencing token after a newer one; no glued text (every delta
 * is its owner's, on a write of its own: `deltaViolations`); no error text in any record
 * or event; `done` resolves to the stored record (or rejects only for create/acquire).
 */
export async function checkInvariants(input: {
  schedule: Schedule;
  store: AgentRuntimeStore;
  runId: string;
  published: Map<string, RunEvent[]>;
  landed: LandedWrite[];
  faults: InjectedFaults;
  outcome: Outcome;
  logs: string[];
  storeAttempts: number;
}): Promise<string[]> {
  const { schedule, store, runId, published, landed, faults, outcome, storeAttempts } = input;
  const violations: string[] = [];
  const violate = (message: string) => violations.push(message);
  // Enough failures close together that one mutation may have spent every try on them.
  const outage = faults.densest >= storeAttempts;

  let snapshot: Awaited<ReturnType<AgentRuntimeStore['getSnapshot']>> | null = null;
  let log: DurableRunEvent[] = [];
  try {
    snapshot = await store.getSnapshot(runId);
    log = await store.readEvents(runId);
  } catch (error) {
    if (!outage) violate(`the run cannot be read: ${String(error)}`);
  }
  const handles = await Promise.all(outcome.handles);

  // done resolves (rejects only when the run could not be created or acquired).
  for (const handle of handles) {
    if (handle.error === undefined) continue;
    const allowed =
      (StoreUnavailableError.isInstance(handle.error) && outage) ||
      // An outage left the run running with an approval request but ended the execution: it
      // is not paused in this process, and a resume there is refused.
      (outage && handle.error instanceof TypeError && /not paused/.test(handle.error.message)) ||
      // Two runtimes race for the run: the later one finds it leased, or already ended.
      // (or, acquiring while the other writes fast, loses every compare-and-set of its tries).
      (outcome.theft &&
        (FencingError.isInstance(handle.error) ||
          InvalidTransitionError.isInstance(handle.error) ||
          StoreConflictError.isInstance(handle.error))) ||
      // A resume after the paused run was cancelled is refused.
      (outcome.cancelled &&
        InvalidTransitionError.isInstance(handle.error) &&
        handle.error.rule === 'run-ended');
    if (!allowed) violate(`done of runtime ${handle.name} rejected: ${String(handle.error)}`);
  }
  if (!snapshot) return violations;
  const run = snapshot.run;

  // Exactly one terminal state, unless paused for approval or stuck for the lease to expire.
  const terminals = log.filter(
    (event) => event.type === 'run-status' && isTerminalStatus(event.status),
  );
  if (isTerminalStatus(run.status)) {
    if (terminals.length !== 1)
      violate(`${terminals.length} terminal events for a ${run.status} run`);
  } else {
    if (terminals.length !== 0) violate(`a ${run.status} run has terminal events`);
    if (!outcome.paused && !outage) violate(`the run ended ${run.status}, not terminal nor paused`);
  }

  // The failure code names the owner of an injected fault.
  if (run.status === 'failed') {
    const code = run.failure?.code ?? 'internal';
    if (!explainedCodes(schedule, faults, outcome, storeAttempts).has(code)) {
      violate(`failed ${code} but no injected fault is owned by ${code}`);
    }
    if (
      run.lastOperation &&
      !['completed', 'failed', 'cancelled'].includes(run.lastOperation.phase)
    ) {
      violate(`failed with operation ${run.lastOperation.phase}`);
    }
  }
  if (run.status === 'cancelled' && !outcome.cancelled) violate('cancelled without a cancel');

  // The log equals what was published: each runtime in order, together without gap or repeat.
  const durable = [...published.entries()].map(([name, events]) => ({
    name,
    events: events.filter((event): event is DurableRunEvent => event.type !== 'run-delta'),
  }));
  for (const { name, events } of durable) {
    for (let index = 1; index < events.length; index++) {
      const [before, after] = [events[index - 1], events[index]];
      if (before && after && after.revision <= before.revision) {
        violate(`runtime ${name} published revision ${after.revision} after ${before.revision}`);
      }
    }
  }
  const union = durable.flatMap(({ events }) => events).sort((a, b) => a.revision - b.revision);
  const logged = new Map(log.map((event) => [event.revision, event]));
  const seen = new Set<number>();
  for (const event of union) {
    // Two runtimes racing to create the run cannot tell whose create landed when one lost its
    // answer: both publish `created` (known; every later revision has one author).
    const racedCreate = event.revision === 1 && outcome.theft;
    if (seen.has(event.revision) && !racedCreate) {
      violate(`revision ${event.revision} published twice`);
    }
    seen.add(event.revision);
    const stored = logged.get(event.revision);
    if (!stored) violate(`published revision ${event.revision} (${event.type}) is not in the log`);
    else if (canonical(stored) !== canonical(event)) {
      violate(`published revision ${event.revision} differs from the log (${event.type})`);
    }
  }
  for (const event of log) {
    if (!seen.has(event.revision)) {
      // An outage longer than the retry budget may hide that a write landed: the runtime
      // could not know to publish it (the log and the snapshot still hold it).
      // A runtime that lost the race for the run cannot know its own lost acquisition landed,
      // nor its creation when a fault hid the answer and the thief acquired the run before the
      // retry (the retry then finds the run taken: nothing tells it revision 1 was its own).
      // Watchers lose nothing: the gap before the thief's first event is caught up from the log.
      const lostRace =
        outcome.theft &&
        event.type === 'run-status' &&
        (event.change === 'acquired' || event.change === 'created');
      if (!outage && !lostRace) {
        violate(`logged revision ${event.revision} (${event.type}) was never published`);
      }
    }
  }

  // No write lands under an older fencing token after a newer one.
  const byRevision = [...landed].sort((a, b) => a.revision - b.revision);
  for (let index = 1; index < byRevision.length; index++) {
    const [before, after] = [byRevision[index - 1], byRevision[index]];
    if (before && after && after.fencingToken < before.fencingToken) {
      violate(
        `revision ${after.revision} landed under token ${after.fencingToken} after ${before.fencingToken}`,
      );
    }
  }

  // No glued text: no two owners' deltas a client's cursor could confuse.
  for (const violation of deltaViolations(published, log)) violate(violation);

  // No error text anywhere durable or published.
  const everything = JSON.stringify([snapshot, log, [...published.values()]]);
  if (everything.includes(SECRET)) violate('error text reached a record or an event');

  // done resolves to the stored record: the last execution of the final acquisition.
  const ofFinal = handles.filter(
    (handle) =>
      handle.run && handle.run.fencingToken === run.fencingToken && handle.run.owner === run.owner,
  );
  // A fenced-out execution resolves to the run as the new owner held it then: the latest
  // revision among them belongs to the execution that ended the run (or paused it).
  const last = ofFinal
    .map((handle) => handle.run)
    .reduce<AgentRun | undefined>(
      (latest, candidate) =>
        candidate && (!latest || candidate.revision > latest.revision) ? candidate : latest,
      undefined,
    );
  if (last && canonical(last) !== canonical(run) && !outage) {
    violate(
      `done resolved to revision ${last.revision} (${last.status}), the store holds ${run.revision} (${run.status})`,
    );
  }
  return violations;
}
