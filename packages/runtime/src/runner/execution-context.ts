import type { RunEventBus } from '../events/run-event-bus';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import type { OwnedRun } from '../store/owned-run';
import type { RunMutationQueue } from '../store/run-mutation-queue';
import type { RunTelemetry } from '../telemetry/run-telemetry';
import type { ExecutionLog } from './execution-log';
import type { ExecutionStop } from './lifecycle/execution-stop';
import type { RuntimeLogEntry } from './run-options';
import type { ToolErrorText } from './tools/tool-error-text';

export interface RunExecutionDeps {
  /** The raw store (reads, ownership checks). */
  store: AgentRuntimeStore;
  /** The store whose mutations publish their durable events. */
  publishing: AgentRuntimeStore;
  bus: RunEventBus;
  queue: RunMutationQueue;
  checkpointEveryEvents: number;
  /** Opt-in: an ordinary batch also waits until the message grew by this fraction. */
  checkpointMinGrowth: number | undefined;
  leaseMs: number;
  log: (entry: RuntimeLogEntry) => void;
  /** The app's telemetry, every call guarded (`safeTelemetry`); undefined when off. */
  telemetry?: Required<RunTelemetry> | undefined;
  /** The text a failed tool call shows every viewer (`exposeToolErrors`; redacted by default). */
  toolErrorText: ToolErrorText;
  /** A tool result larger than this is refused (`maxToolResultBytes`). */
  maxToolResultBytes: number;
}

export type { ExecutionLog } from './execution-log';

/** What every part of one execution shares: its run, its writer handle and how it stops. */
export interface ExecutionContext {
  readonly runId: string;
  readonly deps: RunExecutionDeps;
  readonly controller: AbortController;
  /**
   * The handle every owned mutation goes through (the per-run queue). Replaced only by the
   * terminal recovery after a lost compare-and-set, when the old one names a stale revision.
   */
  owned: OwnedRun;
  /** `performance.now()` of the last owned write: every write renews the lease. */
  lastWriteAt: number;
  /** A runtime-generated id: the identity of a request when no SDK call id is known. */
  readonly executionId: string;
  /** The SDK's call id, from `onStart`. */
  callId: string | undefined;
  readonly stop: ExecutionStop;
  readonly log: ExecutionLog;
  /**
   * Set when the execution ended because it stopped for tool approvals (and nothing else): the
   * one fact the runtime reads to call a `running` run paused — never owner names or aborts.
   */
  pausedForApproval: boolean;
}

/** A wall-clock observation (ADR 0174): not a causal clock and not a duration. */
export const now = () => new Date().toISOString();

/** The run's model as its log entries name it (filled in once the execution knows it). */
export interface ExecutionModel {
  provider?: string;
  model?: string;
}

/**
 * The log of one run's execution, guarded against the hook itself. Its entries name the run's
 * provider and model (`about`, read at each entry): what an operator needs beside a redacted
 * error.
 *
 * @example
 * const log = executionLog(deps.log, 'run-1');
 * log('warn', 'A model request attempt failed', error);
 */
export function executionLog(
  log: RunExecutionDeps['log'],
  runId: string,
  about: ExecutionModel = {},
): ExecutionLog {
  return (level, message, error) => {
    try {
      log({ level, message, runId, error, ...about });
    } catch {
      // A failing log hook must not change the run's outcome.
    }
  };
}
