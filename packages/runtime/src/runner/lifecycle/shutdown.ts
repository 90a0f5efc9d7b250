import { type AgentRun, isTerminalStatus } from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { ExecutionContext } from '../execution-context';
import type { RuntimeLogEntry } from '../run-options';
import { ShutdownAbort } from './shutdown-abort';

/** How long `runtime.close()` waits for in-flight executions to hand off before forcing it. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

export interface CloseOptions {
  /**
   * How long in-flight executions get to reach their checkpoint and hand off their lease.
   * Past it, the lease of every run still executing here is handed off from the store's
   * current record anyway, and `close()` resolves. Default 10 s (`DEFAULT_CLOSE_TIMEOUT_MS`).
   */
  timeoutMs?: number;
}

export { isShutdownAbort, ShutdownAbort } from './shutdown-abort';

/**
 * The end of an execution stopped by a shutdown: its lease expires now (`lease-handed-off`),
 * so `findExpiredRuns` returns the run at once. A failure leaves the lease to expire instead.
 */
export async function handOffExecution(context: ExecutionContext): Promise<AgentRun> {
  try {
    return await context.owned.handOffLease();
  } catch (error) {
    if (FencingError.isInstance(error)) context.stop.loseOwnership();
    else context.log('warn', 'The lease could not be handed off; it expires instead', error);
    try {
      return await context.deps.publishing.getRun(context.runId);
    } catch {
      return context.owned.run;
    }
  }
}

interface ShutdownDeps {
  owner: string;
  publishing: AgentRuntimeStore;
  controllers: Map<string, AbortController>;
  executions: Map<string, Promise<AgentRun>>;
  log: (entry: RuntimeLogEntry) => void;
}

/**
 * `runtime.close()`: refuses new executions from now on (`closed`), aborts every in-flight one
 * with a `ShutdownAbort` and waits for them to hand off, at most `timeoutMs`; then hands off
 * the lease of whatever is still executing here from the store's current record. Idempotent:
 * a second call returns the first's promise.
 *
 * @example
 * const shutdown = new RuntimeShutdown({ owner, publishing, controllers, executions, log });
 * if (shutdown.closed) return refused(new RuntimeClosedError(runId));
 * await shutdown.close({ timeoutMs: 5_000 });
 */
export class RuntimeShutdown {
  readonly #deps: ShutdownDeps;
  #closing: Promise<void> | undefined;

  constructor(deps: ShutdownDeps) {
    this.#deps = deps;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.#closing ??= this.#close(options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    return this.#closing;
  }

  async #close(timeoutMs: number): Promise<void> {
    const { controllers, executions } = this.#deps;
    for (const controller of controllers.values()) {
      if (!controller.signal.aborted) controller.abort(new ShutdownAbort());
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timeoutMs));
    });
    const ended = Promise.allSettled([...executions.values()]).then(() => {});
    await Promise.race([ended, timedOut]);
    clearTimeout(timer);
    await Promise.all([...executions.keys()].map((runId) => this.#forceHandOff(runId)));
  }

  /** An execution that did not end in time: its lease is handed off from the stored record. */
  async #forceHandOff(runId: string): Promise<void> {
    const { owner, publishing, log } = this.#deps;
    try {
      const run = await publishing.getRun(runId);
      if (run.owner !== owner || isTerminalStatus(run.status) || run.leaseExpiresAt === null) {
        return;
      }
      const guard = { owner, fencingToken: run.fencingToken, expectedRevision: run.revision };
      await publishing.handOffLease(runId, guard);
      log({ level: 'warn', runId, message: 'close() timed out: the lease was handed off' });
    } catch (error) {
      log({ level: 'warn', runId, message: 'The lease could not be handed off', error });
    }
  }
}
