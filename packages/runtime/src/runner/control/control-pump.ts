import type { ControlRequest, ControlRequests } from '../../store/control-requests';
import type { RuntimeLogEntry } from '../run-options';

/**
 * How often a runtime polls the store for control requests of the runs it executes (or keeps
 * paused), when no notification woke it first: the bound on how late a request recorded by
 * another process takes effect. One query per interval for all its runs, none while it has no
 * run.
 */
export const DEFAULT_CONTROL_POLL_MS = 500;

export interface ControlPumpOptions {
  requests: ControlRequests;
  /** The runs whose requests this process applies: those it executes or keeps paused. */
  runs: () => Iterable<string>;
  /** Applies one claimed request (at most once per request, across every process). */
  apply: (request: ControlRequest) => Promise<void>;
  log: (entry: RuntimeLogEntry) => void;
  pollMs?: number;
}

export interface ControlPump {
  /** Reads the pending requests now (a notification arrived, or a run began executing). */
  wake(): void;
  stop(): void;
}

/**
 * Delivers durable control requests to this process's executions: woken by the store's
 * in-process notification (and `wake`), with a polling fallback for requests recorded by
 * other processes. Each request is claimed in the store before it is applied, so of every
 * process that sees it exactly one applies it.
 */
export function startControlPump(options: ControlPumpOptions): ControlPump {
  const { requests, apply, log } = options;
  let running = false;
  let again = false;
  let stopped = false;

  async function drain(): Promise<void> {
    const runIds = [...options.runs()];
    if (runIds.length === 0) return;
    const pending = await requests.pending(runIds);
    for (const request of pending) {
      if (!(await requests.claim(request.runId, request.requestId))) continue;
      await apply(request).catch((error: unknown) =>
        log({
          level: 'warn',
          message: `The ${request.kind} request could not be applied`,
          runId: request.runId,
          error,
        }),
      );
    }
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        try {
          await drain();
        } catch (error) {
          // The store is unreachable: the next poll tries again.
          log({ level: 'warn', message: 'Control requests could not be read', runId: '*', error });
        }
      } while (again && !stopped);
      running = false;
    })();
  }

  const timer = setInterval(wake, options.pollMs ?? DEFAULT_CONTROL_POLL_MS);
  (timer as { unref?: () => void }).unref?.();
  const unsubscribe = requests.subscribe(() => wake());
  return {
    wake,
    stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
    },
  };
}
