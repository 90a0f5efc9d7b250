import { type AgentRun, isTerminalStatus, type UIMessage } from '@runlight/protocol';
import { convertToModelMessages } from 'ai';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { RuntimeClosedError } from '../../errors/runtime-closed-error';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { type RunHandle, refused } from '../run-handle';
import type { ResumeRunOptions, RunExecutionOptions } from '../run-options';
import {
  ApprovalRefusedError,
  answerApprovals,
  NotPausedHereError,
  pendingApprovalIds,
} from './approval-answers';

/** What an execution's `prepare` decided: what to continue, or the run as it stands. */
export type PreparedExecution =
  | {
      message?: UIMessage;
      resumed: boolean;
      messages: RunExecutionOptions['messages'];
      acquired?: AgentRun;
      execution?: RunExecutionOptions;
    }
  | { settled: AgentRun };

/** The runtime's `launch`: one execution of `runId` in this process, `prepare` first. */
export type LaunchExecution = (
  runId: string,
  options: RunExecutionOptions | undefined,
  prepare: () => Promise<PreparedExecution>,
) => RunHandle;

export interface ResumeDeps {
  publishing: AgentRuntimeStore;
  /** `runtime.close()` was called: nothing new starts. */
  closed(): boolean;
  /** The `done` of each execution (or cancel) of this process in flight. */
  executions: ReadonlyMap<string, Promise<AgentRun>>;
  /** What a run paused here needs to resume without the caller repeating it. */
  paused: ReadonlyMap<string, RunExecutionOptions>;
  launch: LaunchExecution;
}

/**
 * The runtime's `resumeRun`: applies approval answers to a paused run and continues it in this
 * process — with what this process remembers of the run, or with the caller's `model` and
 * `messages` (after a restart). An answer that cannot apply now is refused at once, never
 * queued behind an execution; the one exception is an answer to the approvals the execution in
 * flight has just requested: it waits for that execution's pause (its lease release, a moment),
 * and only one such answer waits.
 *
 * @example
 * const resume = createResume({ publishing, closed, executions, paused, launch });
 * await resume({ runId, approvals: [{ approvalId, approved: true }] }).created;
 */
export function createResume(deps: ResumeDeps): (options: ResumeRunOptions) => RunHandle {
  const { publishing, executions, paused, launch } = deps;
  /** Runs an answer is waiting to resume (while their pausing execution returns). */
  const waiting = new Set<string>();
  /** The approval ids each resumed execution in flight answers. */
  const answering = new Map<string, ReadonlySet<string>>();

  function resume({ runId, approvals, ...overrides }: ResumeRunOptions): RunHandle {
    if (deps.closed()) return refused(new RuntimeClosedError(runId));
    const previous = executions.get(runId);
    if (previous) {
      // A resumed execution in flight answers these very requests: until its answer checkpoint
      // lands the stored message still requests them, and waiting for it would wait for the
      // whole resumed run. Refused now, as is every answer but one waiting for a pause.
      const inFlight = answering.get(runId);
      if (waiting.has(runId) || approvals.some((answer) => inFlight?.has(answer.approvalId))) {
        return refused(new ApprovalRefusedError('already_resuming', `Run ${runId} is resuming`));
      }
      return afterPause(runId, previous, approvals, () =>
        resume({ runId, approvals, ...overrides }),
      );
    }
    const remembered = paused.get(runId);
    const defined = Object.fromEntries(
      Object.entries(overrides).filter(([, value]) => value !== undefined),
    ) as Partial<RunExecutionOptions>;
    const merged = { ...remembered, ...defined } as Partial<RunExecutionOptions>;
    if (merged.model === undefined || merged.messages === undefined) return notPausedHere(runId);
    const execution = merged as RunExecutionOptions;
    const handle = launch(runId, execution, async () => {
      const snapshot = await publishing.getSnapshot(runId);
      const assistant = snapshot.assistant?.message;
      if (!assistant) throw new TypeError(`Run ${runId} has no assistant message to resume`);
      const answered = answerApprovals(assistant, approvals);
      // The model sees its earlier steps and the answers as the AI SDK UI would send them.
      const continued = await convertToModelMessages([answered], { tools: execution.tools });
      return {
        message: answered,
        resumed: true,
        messages: [...execution.messages, ...continued],
      };
    });
    if (executions.get(runId) === handle.done) {
      const ids = new Set(approvals.map((answer) => answer.approvalId));
      answering.set(runId, ids);
      void handle.done
        .catch(() => {})
        .finally(() => {
          if (answering.get(runId) === ids) answering.delete(runId);
        });
    }
    return handle;
  }

  /**
   * An answer sent while the run's execution here is still pausing (the approval request is
   * committed a moment before the execution returns): it waits for that execution, then
   * resumes. Any other answer is refused once the stored message is read.
   */
  function afterPause(
    runId: string,
    previous: Promise<AgentRun>,
    approvals: ResumeRunOptions['approvals'],
    again: () => RunHandle,
  ): RunHandle {
    waiting.add(runId);
    const next = (async () => {
      try {
        const snapshot = await publishing.getSnapshot(runId);
        const requested = pendingApprovalIds(snapshot.assistant?.message);
        if (!approvals.every((answer) => requested.has(answer.approvalId))) {
          throw new ApprovalRefusedError('run_executing', `Run ${runId} is executing`);
        }
        await previous.catch(() => {});
        return again();
      } finally {
        waiting.delete(runId);
      }
    })();
    const created = next.then((handle) => handle.created);
    const done = next.then((handle) => handle.done);
    created.catch(() => {});
    done.catch(() => {});
    return { done, created };
  }

  /** Nothing here to continue the run with: it ended, or another process (or recovery) must. */
  function notPausedHere(runId: string): RunHandle {
    const done = (async (): Promise<AgentRun> => {
      // A run that ended meanwhile (e.g. cancelled while paused) says so.
      const run = await publishing.getRun(runId);
      if (isTerminalStatus(run.status)) {
        throw new InvalidTransitionError(runId, 'run-ended', `the run already ended ${run.status}`);
      }
      throw new NotPausedHereError(runId);
    })();
    // Callers may await only one of the two; the other must not be an unhandled rejection.
    const created = done.then((run) => run);
    created.catch(() => {});
    done.catch(() => {});
    return { done, created };
  }

  return resume;
}
