import { isTerminalStatus, type UIMessage } from '@runlight/protocol';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { StaleControlRequest } from '../../store/control-requests';
import type { RunMutationQueue } from '../../store/run-mutation-queue';
import type { RunHandle } from '../run-handle';
import type { ResumeRunOptions, RunExecutionOptions, RuntimeLogEntry } from '../run-options';
import type { AdoptionOutcome } from './adoption-outcome';
import {
  type AppliedControlRequest,
  applyControlRequest,
  type ControlTargets,
} from './apply-control-request';
import { answerApprovals, pendingApprovalIds } from './approval-answers';
import { endLost, type ResolveRun } from './take-over-run';

/** A claim of a run nobody leases that has not taken effect after this long is claimed again. */
export const ORPHAN_CLAIM_MS = 5_000;

/** A pending request waits this long for the process that paused its run before recovery adopts it. */
export const DEFAULT_ADOPT_AFTER_MS = 2_000;

export type { AdoptionOutcome } from './adoption-outcome';

export interface AdoptDeps {
  store: AgentRuntimeStore;
  publishing: AgentRuntimeStore;
  queue: RunMutationQueue;
  owner: string;
  leaseMs: number;
  log: (entry: RuntimeLogEntry) => void;
  /** What this process remembers of runs it paused (used before asking `resolveRun`). */
  paused: ReadonlyMap<string, RunExecutionOptions>;
  targets: ControlTargets;
  track(request: StaleControlRequest, applied: AppliedControlRequest): void;
}

export interface AdoptOptions {
  resolveRun: ResolveRun;
  /** Requests adopted per call, oldest first. Default 32. */
  limit?: number;
  /** How long a pending request waits for its run's own process first. Default 2 s. */
  adoptAfterMs?: number;
  /** Only these runs' requests (e.g. a run a takeover just found pausing). Default every run's. */
  runIds?: readonly string[];
}

/**
 * Applies the control requests nobody will: those of runs nobody leases (paused for approvals,
 * queued) whose process is gone — it was stopped, killed or restarted — or whose claimer died
 * before they took effect. Each is claimed here first (so exactly one process applies it), a
 * cancel ends the run, approval answers resume it in this process with what `resolveRun`
 * returns for it (the run's model, conversation and tools, as after a takeover).
 */
export async function adoptOrphanedRequests(
  deps: AdoptDeps,
  options: AdoptOptions,
): Promise<AdoptionOutcome[]> {
  const requests = deps.store.controlRequests;
  if (!requests?.tracksEffects) return [];
  const orphans = await requests.stale({
    ...(options.runIds === undefined ? {} : { runIds: options.runIds }),
    pendingForMs: options.adoptAfterMs ?? DEFAULT_ADOPT_AFTER_MS,
    // A claim of a run nobody leases whose effect is still unknown: a live claimer would hold
    // the lease by now. Claiming it again is safe either way (the acquire decides who runs it).
    claimedForMs: Math.min(deps.leaseMs, ORPHAN_CLAIM_MS),
    limit: options.limit ?? 32,
  });
  return Promise.all(orphans.map((request) => adopt(deps, options.resolveRun, request)));
}

async function adopt(
  deps: AdoptDeps,
  resolveRun: ResolveRun,
  request: StaleControlRequest,
): Promise<AdoptionOutcome> {
  const { runId } = request;
  const requests = deps.store.controlRequests!;
  const outcome = (result: AdoptionOutcome['result']): AdoptionOutcome => ({
    runId,
    requestId: request.requestId,
    kind: request.kind,
    result,
  });
  const snapshot = await deps.publishing.getSnapshot(runId);
  if (isTerminalStatus(snapshot.run.status) || snapshot.run.leaseExpiresAt !== null) {
    return outcome('skipped');
  }
  if (!(await requests.claim(runId, request.requestId, request.claimedAt))) {
    return outcome('skipped');
  }
  if (request.kind === 'cancel') {
    deps.track(request, { effect: deps.targets.cancel(runId) });
    return outcome('applied');
  }
  const message = snapshot.assistant?.message;
  const pending = pendingApprovalIds(message);
  const answers = request.approvals ?? [];
  if (answers.length === 0 || !answers.every((answer) => pending.has(answer.approvalId))) {
    await requests.applied(runId, request.requestId);
    return outcome('refused');
  }
  // The execution continues the answered message: that is what `resolveRun` is shown.
  let answered: UIMessage;
  try {
    answered = answerApprovals(message!, answers);
  } catch {
    await requests.applied(runId, request.requestId);
    return outcome('refused');
  }
  let execution: RunExecutionOptions | null | undefined = deps.paused.get(runId);
  try {
    execution ??= await resolveRun(snapshot.run, { message: answered, takeovers: 0 });
  } catch (error) {
    deps.log({ level: 'error', runId, message: 'resolveRun failed; the answer waits', error });
    return outcome('deferred');
  }
  if (!execution) {
    // Nothing can continue it: the answer would wait forever, and so would the run.
    const acquired = await deps.publishing.acquireRun(runId, {
      owner: deps.owner,
      leaseMs: deps.leaseMs,
    });
    const lostOutcome = { runId, result: 'ended', reason: 'not-resolved' } as const;
    await endLost(deps, acquired, message ?? null, lostOutcome);
    await requests.applied(runId, request.requestId);
    return outcome('ended');
  }
  const resume: ControlTargets['resume'] = (options: ResumeRunOptions): RunHandle =>
    deps.targets.resume({ ...execution, ...options });
  const applied = await applyControlRequest(request, { ...deps.targets, resume });
  deps.track(request, applied);
  return outcome('applied');
}
