import { type DurableRunEvent, isTerminalStatus } from '@runlight/protocol';
import type { AgentRuntimeStore } from '@runlight/runtime';
import { kindOf } from './scenarios';
import { selectMessage, textOf, type Watcher } from './watchers';

export interface RunOutcome {
  runId: string;
  status: string;
  failure: string | null;
  /** When its terminal event was committed (ms), null while not ended. */
  endedAt: number | null;
  text: string;
}

/** What the soak did to a run through the gateways, to check it took effect exactly once. */
export interface ControlLog {
  cancels: Map<string, number[]>;
  approvals: Map<string, number[]>;
}

const TERMINAL_CHANGES = new Set(['completed', 'failed', 'cancelled']);

/** The invariants of one run's durable log: one terminal event, no write from a fenced owner. */
export function checkLog(runId: string, events: readonly DurableRunEvent[]): string[] {
  const violations: string[] = [];
  const terminals = events.filter(
    (event) => event.type === 'run-status' && TERMINAL_CHANGES.has(event.change),
  );
  if (terminals.length !== 1) violations.push(`${runId}: ${terminals.length} terminal events`);
  let token = 0;
  for (const event of events) {
    if (event.type !== 'run-status') continue;
    if (event.change === 'acquired') token = Math.max(token, event.fencingToken);
    else if (event.fencingToken < token) {
      violations.push(
        `${runId}: ${event.change} at revision ${event.revision} by fencing token ${event.fencingToken} after ${token} was acquired`,
      );
    }
  }
  return violations;
}

export async function outcomeOf(store: AgentRuntimeStore, runId: string): Promise<RunOutcome> {
  const snapshot = await store.getSnapshot(runId);
  const events = await store.readEvents(runId);
  const end = events.find(
    (event) => event.type === 'run-status' && TERMINAL_CHANGES.has(event.change),
  );
  return {
    runId,
    status: snapshot.run.status,
    failure: snapshot.run.failure?.code ?? null,
    endedAt: end ? Date.parse(end.at) : null,
    text: textOf(snapshot.assistant?.message),
  };
}

/** Every check of one run once the wave settled. */
export async function checkRun(input: {
  store: AgentRuntimeStore;
  runId: string;
  samples: readonly string[];
  watchers: readonly Watcher[];
  control: ControlLog;
}): Promise<{ outcome: RunOutcome; violations: string[] }> {
  const { store, runId } = input;
  const outcome = await outcomeOf(store, runId);
  const events = await store.readEvents(runId);
  const violations = checkLog(runId, events);
  const kind = kindOf(runId);
  const expected = kind === 'cancel' ? 'cancelled' : 'completed';
  if (outcome.status !== expected) {
    violations.push(
      `${runId}: ended ${outcome.status} (${outcome.failure ?? 'no code'}), expected ${expected}`,
    );
  }
  for (const [index, sample] of input.samples.entries()) {
    if (!outcome.text.startsWith(sample)) {
      violations.push(
        `${runId}: committed text of sample ${index} (${sample.length} chars) is not a prefix of the final text`,
      );
      break;
    }
  }
  for (const watcher of input.watchers) {
    const state = watcher.state(runId);
    const seen = state ? textOf(selectMessage(state)) : '';
    if (!state?.run || !isTerminalStatus(state.run.status) || state.run.status !== outcome.status) {
      violations.push(
        `${runId}: the watcher on ${watcher.gateway} shows ${state?.run?.status ?? 'nothing'} (connection ${state?.connection})`,
      );
    } else if (seen !== outcome.text) {
      violations.push(
        `${runId}: the watcher on ${watcher.gateway} shows ${seen.length} chars, the store ${outcome.text.length} (glued or missing text)`,
      );
    }
  }
  if (kind === 'cancel') {
    const answers = input.control.cancels.get(runId) ?? [];
    if (!answers.includes(202))
      violations.push(`${runId}: cancel answered ${answers.join(',') || 'never'}`);
  }
  if (kind === 'approval') {
    const answers = input.control.approvals.get(runId) ?? [];
    const accepted = answers.filter((status) => status === 202).length;
    if (accepted !== 1) {
      violations.push(
        `${runId}: ${accepted} of ${answers.length} concurrent approval answers accepted (${answers.join(',')})`,
      );
    }
    const snapshot = await store.getSnapshot(runId);
    const parts = (snapshot.assistant?.message.parts ?? []).filter(
      (part) => part.type === 'tool-transfer',
    );
    const done = parts.filter((part) => 'state' in part && part.state === 'output-available');
    // A call a dead runner left unfinished is closed as failed and made again: never pending.
    const closed = parts.filter((part) => 'state' in part && part.state === 'output-error');
    if (done.length !== 1 || closed.length !== parts.length - 1) {
      violations.push(`${runId}: ${parts.length} transfer parts, ${done.length} with a result`);
    }
  }
  return { outcome, violations };
}
