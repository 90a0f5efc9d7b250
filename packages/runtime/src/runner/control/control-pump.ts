import type { ControlRequest, ControlRequests } from '../../store/control-requests';
import type { RuntimeLogEntry } from '../run-options';
import type { AppliedControlRequest } from './apply-control-request';

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
  /** Applies one claimed request (at most once per claim, across every process). */
  apply: (request: ControlRequest) => Promise<AppliedControlRequest>;
  log: (entry: RuntimeLogEntry) => void;
  pollMs?: number;
  /**
   * A request claimed this long ago whose effect was never recorded (its claimer died, or the
   * run was handed off before the cancel landed) is claimed again. The runtime's lease.
   */
  staleClaimMs: number;
}

export interface ControlPump {
  /** Reads the pending requests now (a notification arrived, or a run began executing). */
  wake(): void;
  /** Marks `request` applied once `effect` says it took effect (the claim was this caller's). */
  track(request: ControlRequest, applied: AppliedControlRequest): void;
  stop(): void;
}

/**
 * Delivers durable control requests to this process's executions: woken by the store's
 * in-process notification (and `wake`), with a polling fallback for requests recorded by
 * other processes. Each request is claimed in the store before it is applied, so of every
 * process that sees it exactly one applies it; once its effect is known it is marked applied,
 * and a claim that never was (the claimer died) is claimed again after `staleClaimMs`.
 */
export function startControlPump(options: ControlPumpOptions): ControlPump {
  const { requests, apply, log } = options;
  /** Requests this process claimed and is applying: never claimed again from here. */
  const applying = new Set<string>();
  let running = false;
  let again = false;
  let stopped = false;

  const keyOf = (request: ControlRequest) => `${request.runId}\u0000${request.requestId}`;

  function track(request: ControlRequest, applied: AppliedControlRequest): void {
    const key = keyOf(request);
    applying.add(key);
    void applied.effect
      .then(async (known) => {
        if (known) await requests.applied(request.runId, request.requestId);
      })
      .catch((error: unknown) =>
        log({
          level: 'warn',
          message: `The ${request.kind} request could not be marked applied; it may apply again`,
          runId: request.runId,
          error,
        }),
      )
      .finally(() => applying.delete(key));
  }

  async function due(runIds: string[]) {
    if (requests.tracksEffects) {
      const query = { runIds, pendingForMs: 0, claimedForMs: options.staleClaimMs, limit: 100 };
      return requests.stale(query);
    }
    // A driver that cannot tell stale claims: its pending requests only.
    return (await requests.pending(runIds)).map((request) => ({ ...request, claimedAt: null }));
  }

  async function drain(): Promise<void> {
    const runIds = [...options.runs()];
    if (runIds.length === 0) return;
    for (const request of await due(runIds)) {
      if (applying.has(keyOf(request))) continue;
      if (!(await requests.claim(request.runId, request.requestId, request.claimedAt))) continue;
      const applied = await apply(request).catch((error: unknown) => {
        log({
          level: 'warn',
          message: `The ${request.kind} request could not be applied`,
          runId: request.runId,
          error,
        });
        return { effect: Promise.resolve(false) };
      });
      track(request, applied);
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
    track,
    stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
    },
  };
}
