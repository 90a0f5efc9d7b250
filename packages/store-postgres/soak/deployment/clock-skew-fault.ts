import type { AgentRuntimeStore } from '@runlight/runtime';
import type { Fleet, Member } from './fleet';
import { waitUntil } from './wait';

const SKEW_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the clock-skew fault needs of the soak (`FaultContext` holds it). */
export interface ClockSkewContext {
  fleet: Fleet;
  leaseMs: number;
  nextRunnerName(): string;
  store: AgentRuntimeStore;
  /** The wave's runs, and its number. */
  runIds: readonly string[];
  wave: number;
  /** Beside other work a takeover may take this many times its bound (`--bound-factor`). */
  boundFactor?: number;
  violation(line: string): void;
}

/** The runner process's lease owner name (`runner-process.ts`: `<name>-<pid>`). */
const ownerOf = (member: Member) => `${member.name}-${member.child.pid}`;

/**
 * The runs' revisions now; `takenWhileAlive` then finds the takeovers since: an `acquired`
 * over a lease that was not released (a run paused for approvals holds none) nor handed off.
 */
async function revisions(context: ClockSkewContext) {
  const at = new Map<string, number>();
  for (const runId of context.runIds) at.set(runId, (await context.store.getRun(runId)).revision);
  return at;
}

async function takenWhileAlive(
  context: ClockSkewContext,
  since: Map<string, number>,
  alive: readonly Member[],
  window: string,
) {
  const owners = new Set(alive.map(ownerOf));
  for (const runId of context.runIds) {
    const events = await context.store.readEvents(runId, {
      afterRevision: Math.max(0, (since.get(runId) ?? 1) - 1),
    });
    for (const [index, event] of events.entries()) {
      const previous = events[index - 1];
      if (event.type !== 'run-status' || event.change !== 'acquired' || !previous) continue;
      if (previous.type === 'run-status' && previous.change === 'lease-handed-off') continue;
      if (previous.leaseExpiresAt === null || previous.leaseExpiresAt === undefined) continue;
      const from = 'owner' in previous ? previous.owner : null;
      const holder = from ?? (await context.store.getRun(runId)).owner;
      if (holder === null || !owners.has(holder)) continue;
      context.violation(
        `${runId}: taken over by ${event.owner} from ${holder}, alive (${window}), at revision ${event.revision}`,
      );
    }
  }
}

/**
 * `clock-skew`: runners whose wall clocks are a minute wrong join the fleet (a preload offsets
 * their `Date`). While the wave streams on the current runner, one 60 s ahead runs its recovery
 * loop beside it for a lease: it must take nothing. The current runner hands its runs off
 * (SIGTERM) — the one ahead takes them — then one 60 s behind starts and the one ahead is
 * SIGKILLed: the one behind must take its runs over within the lease (plus a recovery poll).
 * Last a runner on the right clock starts beside the one behind for a lease — it must take
 * nothing — and the one behind hands off to it. Leases are decided on PostgreSQL's clock, so
 * no run changes owner while its owner is alive.
 */
export async function injectClockSkew(input: ClockSkewContext): Promise<string> {
  let context = input;
  const { fleet, leaseMs } = context;
  const [current] = fleet.runners();
  if (!current) throw new Error('no runner alive');
  const pollMs = 2_000;
  // A takeover waits out the dead runner's lease, then a recovery poll and a loaded machine; a
  // runner deciding on its own clock 60 s behind waited a minute more.
  const slackMs = 5_000;

  // Runs of its own that stream through the whole fault (a `cancel`-kind script, 2,000 tokens,
  // never cancelled): the wave's own end within a lease, so they would prove nothing.
  const longRuns = [0, 1, 2].map((i) => `soak-clock-${context.wave}-${i}-cancel`);
  for (const runId of longRuns) current.child.send({ type: 'start', runId });
  const underway = longRuns.map((runId) => async () => {
    const run = await context.store.getRun(runId);
    return run.lastOperation?.phase === 'first-output';
  });
  if (!(await waitUntil(underway, 30_000))) throw new Error('the clock-skew runs did not start');
  const runIds = [...context.runIds, ...longRuns];
  context = { ...context, runIds };

  let since = await revisions(context);
  const ahead = await fleet.start('runner', `${context.nextRunnerName()}-ahead`, {
    clockOffsetMs: SKEW_MS,
  });
  await sleep(leaseMs + pollMs);
  await takenWhileAlive(context, since, [current], `${ahead.name} 60 s ahead beside it`);

  await fleet.terminate(current);
  const owned = (member: Member) => async () => {
    for (const runId of context.runIds) {
      const run = await context.store.getRun(runId);
      if (run.leaseExpiresAt !== null && run.owner !== ownerOf(member)) return false;
    }
    return true;
  };
  await waitUntil([owned(ahead)], leaseMs + 10_000);

  since = await revisions(context);
  const behind = await fleet.start('runner', `${context.nextRunnerName()}-behind`, {
    clockOffsetMs: -SKEW_MS,
  });
  const held = (await Promise.all(context.runIds.map((id) => context.store.getRun(id)))).filter(
    (run) => run.leaseExpiresAt !== null && run.owner === ownerOf(ahead),
  ).length;
  await fleet.kill(ahead);
  const killedAt = Date.now();
  const boundMs = (leaseMs + slackMs) * (context.boundFactor ?? 1);
  const takenOver = await waitUntil([owned(behind)], boundMs + 1_000);
  const takeoverMs = Date.now() - killedAt;
  if (!takenOver || takeoverMs > boundMs) {
    context.violation(
      `${ahead.name}'s ${held} runs taken over by ${behind.name} ${takenOver ? `${takeoverMs} ms` : 'not'} after its SIGKILL (bound ${boundMs} ms)`,
    );
  }

  since = await revisions(context);
  const next = await fleet.start('runner', context.nextRunnerName());
  await sleep(leaseMs + pollMs);
  await takenWhileAlive(context, since, [behind], `${next.name} on the right clock beside it`);
  await fleet.terminate(behind);
  // The long runs end on the last runner: acquired once per runner that held them, no more.
  const ended = await waitUntil(
    longRuns.map((runId) => async () => (await context.store.getRun(runId)).status === 'completed'),
    180_000,
  );
  if (!ended) context.violation(`the clock-skew runs did not complete (${longRuns.join(', ')})`);
  return `${ahead.name} (+60 s) took nothing from ${current.name}, then its ${held} runs; SIGKILLed, ${behind.name} (−60 s) took them over ${takeoverMs} ms later (lease ${leaseMs} ms); ${next.name} took nothing from ${behind.name} while it lived`;
}
