import { redactingLog } from '../log/redact-error';
import type { AgentRuntime } from '../runner/agent-runtime';
import type { RecoveryOutcome, ResolveRun } from '../runner/control/take-over-run';
import { logArguments } from '../runner/log-arguments';
import type { RuntimeLogEntry } from '../runner/run-options';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';

export interface RunRecoveryOptions {
  /**
   * Where expired leases are looked up (the store the runtime writes to); its control requests,
   * when it has them, are swept of ended runs' now and then (`sweepEveryMs`).
   */
  store: Pick<AgentRuntimeStore, 'findExpiredRuns'> &
    Partial<Pick<AgentRuntimeStore, 'controlRequests'>>;
  /**
   * The runtime that takes the runs over and executes them (its owner name and lease), and
   * adopts the control requests of paused runs whose process is gone (`adoptOrphanedRequests`).
   */
  runtime: Pick<AgentRuntime, 'recoverRun'> & Partial<Pick<AgentRuntime, 'adoptOrphanedRequests'>>;
  /** How the application continues a run: model, messages, tools — or nothing to end it. */
  resolveRun: ResolveRun;
  /** Pause between two polls. Default 1 s. */
  intervalMs?: number;
  /** Takeovers a run may have before it is ended `ownership_lost` as poison. Default 3. */
  maxAttempts?: number;
  /** Expired runs taken over per poll, oldest expiry first. Default 32. */
  batchSize?: number;
  /**
   * The server log (takeovers, failed polls). Default `console.error` for errors only. Errors
   * are redacted as `createAgentRuntime`'s are (`RedactedError`) unless `logRawErrors`.
   */
  onLog?: (entry: RuntimeLogEntry) => void;
  /** Opt-in: `onLog` gets raw errors (see `createAgentRuntime`). Default `false`. */
  logRawErrors?: boolean;
  /**
   * A run whose takeover threw (its record does not parse, the store failed mid-takeover) is
   * left alone for `intervalMs × 2^failures`, at most this long, before it is tried again — so
   * a few broken runs at the head of the expired queue never starve the rest. Default 5 min.
   */
  maxBackoffMs?: number;
  /**
   * How long an approval answer or cancel of a run nobody leases waits for the process that
   * paused the run before this recovery applies it (that process is gone: stopped, killed,
   * restarted). Default 2 s.
   */
  adoptAfterMs?: number;
  /**
   * How often a poll also deletes the control requests of runs that ended over an hour ago
   * (at most 1,000 a time). Default 60 s; `0` never.
   */
  sweepEveryMs?: number;
}

/** A recovery loop; `tick()` is one poll, for tests and for callers with their own schedule. */
export interface RunRecovery {
  /** Polls every `intervalMs` until `stop()` (the timer never keeps the process alive). */
  start(): void;
  /** Stops polling; resolves once a poll in progress has decided its takeovers. */
  stop(): Promise<void>;
  /** One poll: takes over up to `batchSize` expired runs and resolves with their outcomes. */
  tick(): Promise<RecoveryOutcome[]>;
}

const defaultLog = (entry: RuntimeLogEntry) => {
  if (entry.level === 'error') {
    console.error(...logArguments(`[runlight] recovery: ${entry.message}`, entry.error));
  }
};

/**
 * The sweeper that finishes runs whose worker died. Each poll asks the store for runs whose
 * lease expired (oldest first, at most `batchSize`) and has the runtime take each one over:
 * the acquire compare-and-set lets exactly one of competing recoverers win; the winner records
 * the dead owner's in-flight operation failed and resumes the run from its last checkpoint with
 * what `resolveRun(run)` returns — or ends it `ownership_lost` when that is nothing, or when
 * the run has been taken over more than `maxAttempts` times (a poison run that kills every
 * worker it lands on). Polls never overlap; the batch's takeovers run concurrently.
 *
 * @example
 * const recovery = createRunRecovery({
 *   store,
 *   runtime,
 *   resolveRun: async (run) => {
 *     const chat = await db.chatOfRun(run.id);
 *     return chat && { model: openai('gpt-5'), messages: chat.messages, tools };
 *   },
 * });
 * recovery.start();
 * process.on('SIGTERM', () => void recovery.stop());
 */
export function createRunRecovery(options: RunRecoveryOptions): RunRecovery {
  const { store, runtime, resolveRun } = options;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const batchSize = options.batchSize ?? 32;
  const log = redactingLog(options.onLog ?? defaultLog, options.logRawErrors);
  const maxBackoffMs = options.maxBackoffMs ?? 5 * 60_000;
  /** Runs whose takeover threw: how often in a row, and not before when to try again. */
  const backingOff = new Map<string, { failures: number; until: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let current: Promise<RecoveryOutcome[]> | null = null;
  const sweepEveryMs = options.sweepEveryMs ?? 60_000;
  let lastSweep = Date.now();

  async function poll(): Promise<RecoveryOutcome[]> {
    const now = Date.now();
    const waiting = new Set<string>();
    for (const [runId, backoff] of backingOff) if (backoff.until > now) waiting.add(runId);
    // Ask past the runs backing off, so that they take no place in the batch.
    const expired = await store.findExpiredRuns({ limit: batchSize + waiting.size });
    const due = expired.filter(({ runId }) => !waiting.has(runId)).slice(0, batchSize);
    const seen = new Set(expired.map(({ runId }) => runId));
    for (const runId of backingOff.keys()) {
      // Its lease is no longer expired (another recoverer, an operator): forget it.
      if (!waiting.has(runId) && !seen.has(runId)) backingOff.delete(runId);
    }
    const [takeovers, adoptions] = await Promise.all([
      Promise.all(due.map(takeOver)),
      adoptOrphans(),
      sweepEnded(),
    ]);
    return [...takeovers, ...adoptions];
  }

  /** Now and then: the requests of runs long ended go, so the table does not grow forever. */
  async function sweepEnded(): Promise<void> {
    if (sweepEveryMs <= 0 || Date.now() - lastSweep < sweepEveryMs) return;
    lastSweep = Date.now();
    try {
      await store.controlRequests?.sweep({ endedForMs: 60 * 60_000, limit: 1_000 });
    } catch (error) {
      log({ level: 'warn', runId: '-', message: 'Ended runs’ control requests not swept', error });
    }
  }

  /** The control requests of paused runs whose process is gone: applied here. */
  async function adoptOrphans(): Promise<RecoveryOutcome[]> {
    if (!runtime.adoptOrphanedRequests) return [];
    try {
      const adoptions = await runtime.adoptOrphanedRequests({
        resolveRun,
        limit: batchSize,
        ...(options.adoptAfterMs === undefined ? {} : { adoptAfterMs: options.adoptAfterMs }),
      });
      return adoptions
        .filter((adoption) => adoption.result !== 'skipped')
        .map((adoption) => {
          log({
            level: 'info',
            runId: adoption.runId,
            message: `recovery: ${adoption.kind} request adopted (${adoption.result})`,
          });
          return { runId: adoption.runId, result: 'adopted', adoption };
        });
    } catch (error) {
      log({ level: 'error', runId: '-', message: 'Orphaned control requests failed', error });
      return [];
    }
  }

  async function takeOver({ runId }: { runId: string }): Promise<RecoveryOutcome> {
    try {
      const handle = runtime.recoverRun({ runId, resolveRun, maxAttempts });
      // The execution's end is the runtime's business (a result, never a rejection).
      handle.done.catch(() => {});
      const outcome = await handle.outcome;
      if (outcome.result !== 'skipped') {
        log({
          level: 'info',
          runId,
          message: `recovery: ${outcome.result}${outcome.reason ? ` (${outcome.reason})` : ''}`,
        });
      }
      backingOff.delete(runId);
      return outcome;
    } catch (error) {
      const failures = (backingOff.get(runId)?.failures ?? 0) + 1;
      const delayMs = Math.min(maxBackoffMs, intervalMs * 2 ** failures);
      backingOff.set(runId, { failures, until: Date.now() + delayMs });
      log({
        level: 'error',
        runId,
        message: `The run could not be taken over (${failures} in a row); next try in ${delayMs} ms`,
        error,
      });
      return { runId, result: 'skipped' };
    }
  }

  function tick(): Promise<RecoveryOutcome[]> {
    // Polls never overlap: a tick during a poll shares its result.
    current ??= poll().finally(() => {
      current = null;
    });
    return current;
  }

  function schedule(): void {
    if (!running) return;
    timer = setTimeout(() => {
      tick()
        .catch((error) =>
          log({ level: 'error', runId: '-', message: 'The expired-lease poll failed', error }),
        )
        .finally(schedule);
    }, intervalMs);
    timer.unref?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    async stop() {
      running = false;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await current?.catch(() => {});
    },
    tick,
  };
}
