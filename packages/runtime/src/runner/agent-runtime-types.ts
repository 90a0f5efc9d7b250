/** The runtime's public shape: its options, a run's handle, and the defaults it starts from. */

import type { AgentRun } from '@runlight/protocol';
import { generateId } from 'ai';
import type { RunEventSource } from '../events/event-hub';
import type { RunEventBus } from '../events/run-event-bus';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import type { RunTelemetry } from '../telemetry/run-telemetry';
import type { AdoptionOutcome, AdoptOptions } from './control/adopt-orphaned-requests';
import type { RecoveryOutcome, TakeOverOptions } from './control/take-over-run';
import type { CloseOptions } from './lifecycle/shutdown';
import { logArguments } from './log-arguments';
import type { RunHandle } from './run-handle';
import type { ResumeRunOptions, RuntimeLogEntry, StartRunOptions } from './run-options';
import type { ToolErrorText } from './tools/tool-error-text';
import type { StoreRetryOptions } from './writes/retry-schedule';

export interface AgentRuntimeOptions {
  store: AgentRuntimeStore;
  /**
   * This runtime's owner name in leases. Default `runtime-<host>-<pid>-<random>`: unique per
   * process and per runtime instance. Two runtimes must never share a name (a shared name lets
   * one re-acquire the other's run as its own).
   */
  owner?: string;
  /**
   * What a failed tool call shows every viewer (live deltas, checkpoints, snapshots). Default
   * redacted: `'The tool failed.'`. `true` shows the error's message; a function maps it. The
   * model itself still receives the real error text in the same execution (the AI SDK builds
   * its next step from the original error); a resumed run sends the model the stored text.
   */
  exposeToolErrors?: boolean | ToolErrorText;
  /**
   * Retries of one store mutation after a transient error (a dropped connection), inside the
   * run's queue turn: pauses from 20 ms doubling, capped at 2 s, ±20 % jitter, for up to
   * `budgetMs` (default `leaseMs`). After the last the run ends `storage_unavailable`.
   */
  storeRetry?: StoreRetryOptions;
  /**
   * A tool result whose JSON is larger than this many bytes (UTF-8) is refused: that tool call
   * ends `output-error` with the fixed text `TOOL_RESULT_TOO_LARGE_TEXT` (code
   * `tool_result_too_large`), the model receives the same text, and the run continues. Default
   * 4 MiB (`DEFAULT_MAX_TOOL_RESULT_BYTES`).
   */
  maxToolResultBytes?: number;
  /** Ordinary chunks per batched checkpoint. Default 32 (`DEFAULT_CHECKPOINT_EVERY_EVENTS`). */
  checkpointEveryEvents?: number;
  /**
   * Opt-in: fewer writes for long answers (off by default: the ADR's cadence alone). When set,
   * an ordinary batch is written only once the message also grew by this fraction since the
   * last write; structural boundaries still write at once. Checkpoints are append-only, so the
   * bytes stay linear without it; it saves the per-write record. The price: late in a long
   * answer a crash loses more text and a reconnect replays more deltas from memory.
   */
  checkpointMinGrowth?: number;
  /** Lease length; renewed by every write and by a heartbeat while idle. Default 30 s. */
  leaseMs?: number;
  /**
   * How often the runtime polls the store's durable control requests (cancels and approval
   * answers recorded by other processes) for the runs it executes or keeps paused. Requests
   * recorded through the same store object in this process wake it at once. Default 500 ms
   * (`DEFAULT_CONTROL_POLL_MS`).
   */
  controlPollMs?: number;
  /** Where events are published. Default a new in-process `RunEventHub`. */
  events?: RunEventBus;
  /**
   * Spans and metrics projected from the run's durable facts — `createOtelTelemetry()` from
   * `@runlight/runtime/otel` (on `@opentelemetry/api`). Off by default.
   */
  telemetry?: RunTelemetry;
  /**
   * The server log. Default `console.error`. Each entry's `error` is **redacted** (`RedactedError`:
   * kind, status, retryable, a system code; the run's `provider` and `model` beside it): an AI
   * SDK `APICallError` carries the system prompt and every message (`requestBodyValues`), the
   * response body and headers, and a JSON logger (pino) writes all of it.
   */
  onLog?: (entry: RuntimeLogEntry) => void;
  /**
   * Opt-in: `onLog` gets the raw error, with whatever it carries — prompts, messages, tool
   * input and output, provider bodies and headers. For a developer's machine, not production.
   * Default `false`.
   */
  logRawErrors?: boolean;
}

export type { RunHandle } from './run-handle';
export { refused } from './run-handle';

export interface AgentRuntime extends RunEventSource {
  startRun(options: StartRunOptions): RunHandle;
  resumeRun(options: ResumeRunOptions): RunHandle;
  /**
   * Aborts the run's local execution; its operation and the run end `cancelled`. A run this
   * process is not executing (e.g. one awaiting approval) is acquired and ended `cancelled`,
   * unless another owner's lease holds it (then the attempt is logged). To cancel a run
   * wherever it executes, record a request (`store.controlRequests.record`, as the HTTP cancel
   * route does): the executing runtime applies it exactly once.
   */
  cancelRun(runId: string): void;
  /**
   * Takes over a run whose owner's lease expired — the recovery loop's step for each run
   * `findExpiredRuns` returns (see `createRunRecovery`). `outcome` settles once the takeover
   * is decided; `done` when the recovered execution ends (as `startRun`'s) — for a run it
   * found pausing (`paused`), once the answers or cancel recorded for it meanwhile were adopted
   * here (claimed and handed to their execution, as `adoptOrphanedRequests` does).
   */
  recoverRun(options: TakeOverOptions): {
    outcome: Promise<RecoveryOutcome>;
    done: Promise<AgentRun>;
  };
  /**
   * Applies the durable control requests nobody else will — of runs nobody leases whose process
   * is gone (a cancel or the approval answers of a run paused by a runner that was stopped,
   * killed or restarted), or whose claimer died before they took effect: claimed here (exactly
   * one process applies each), answers resume the run in this process with what `resolveRun`
   * returns. The recovery loop calls it on every poll (see `createRunRecovery`).
   */
  adoptOrphanedRequests(options: AdoptOptions): Promise<AdoptionOutcome[]>;
  /**
   * Stops this runtime gracefully (a deploy, SIGTERM): from the call on, `startRun`,
   * `resumeRun` and `recoverRun` are refused with `RuntimeClosedError`; every in-flight
   * execution stops its model stream at the next safe point, checkpoints its text, ends its
   * operation and hands its lease off (`lease-handed-off`: the run stays `running`, its lease
   * expired now), so another runner's recovery takes it over on its next poll instead of after
   * a whole lease. Past `timeoutMs` (default 10 s) the leases still held are handed off anyway.
   * Resolves once every execution handed off; idempotent. Runs paused for approvals hold no
   * lease and are not touched.
   *
   * @example
   * process.once('SIGTERM', () => void runtime.close({ timeoutMs: 5_000 }).then(() => process.exit(0)));
   */
  close(options?: CloseOptions): Promise<void>;
}

export const DEFAULT_LEASE_MS = 30_000;

export const defaultLog = (entry: RuntimeLogEntry) => {
  console.error(
    ...logArguments(`[runlight] ${entry.level} run ${entry.runId}: ${entry.message}`, entry.error),
  );
};

/**
 * `runtime-<host>-<pid>-<random>`: the host (`HOSTNAME`, e.g. a pod name) and process id say
 * where a lease holder runs; the random part keeps two runtimes of one process apart.
 */
export function defaultOwner(): string {
  const env = globalThis.process?.env;
  const host = (env?.HOSTNAME ?? env?.COMPUTERNAME ?? 'host').replace(/[^A-Za-z0-9._-]/g, '');
  const pid = globalThis.process?.pid ?? 0;
  return `runtime-${host || 'host'}-${pid}-${generateId()}`;
}
