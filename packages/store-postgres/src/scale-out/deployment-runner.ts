import type { AgentRuntimeStore, CloseOptions, RunEventBus } from '@runlight/runtime';
import {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  createRunRecovery,
  type ResolveRun,
  type RunRecovery,
  type RunRecoveryOptions,
} from '@runlight/runtime';

/** A runner's recovery loop settings; `false` opts out (another process must run one). */
export type DeploymentRecoveryOptions =
  | false
  | (Partial<
      Pick<
        RunRecoveryOptions,
        'intervalMs' | 'maxAttempts' | 'batchSize' | 'maxBackoffMs' | 'adoptAfterMs'
      >
    > & {
      /**
       * How a run whose owner vanished, or whose end could not be written, continues. Default:
       * nothing — the run is ended `ownership_lost`, so no run stays `running` forever.
       */
      resolveRun?: ResolveRun;
    });

export interface DeploymentRunnerOptions extends Omit<AgentRuntimeOptions, 'store' | 'events'> {
  /** The recovery loop this runner runs (default on, every 1 s); `false` to opt out. */
  recovery?: DeploymentRecoveryOptions;
}

export interface DeploymentRunner {
  runtime: AgentRuntime;
  /** The recovery loop, or undefined when opted out. */
  recovery: RunRecovery | undefined;
  /** Stops the recovery loop only (the runtime keeps executing). */
  stop(): void;
  /**
   * Stops this runner gracefully (a deploy, SIGTERM): the recovery loop stops taking runs over,
   * then `runtime.close(options)` refuses new runs, stops every in-flight one at a checkpoint and
   * hands its lease off, so another runner's recovery takes it over on its next poll instead of
   * after a whole lease. Resolves once every lease was handed off, at most `timeoutMs` (default
   * 10 s) later. Idempotent.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** Ends an abandoned run: nothing to continue it with. */
const endAbandoned: ResolveRun = () => undefined;

/**
 * A runner process's runtime on the deployment's store and bus, with a recovery loop started by
 * default: a run abandoned by a dead runner, or whose end this runner could not write during a
 * store outage longer than its lease, is taken over (or ended with a failure code) once its
 * lease expires.
 */
export function startDeploymentRunner(
  deployment: { store: AgentRuntimeStore; bus: RunEventBus },
  options: DeploymentRunnerOptions = {},
): DeploymentRunner {
  const { recovery: recoveryOptions, ...runtimeOptions } = options;
  const runtime = createAgentRuntime({
    ...runtimeOptions,
    store: deployment.store,
    events: deployment.bus,
  });
  let recovery: RunRecovery | undefined;
  if (recoveryOptions !== false) {
    const { resolveRun, ...settings } = recoveryOptions ?? {};
    recovery = createRunRecovery({
      ...settings,
      store: deployment.store,
      runtime,
      resolveRun: resolveRun ?? endAbandoned,
      onLog: runtimeOptions.onLog,
      // One choice for the whole runner: its recovery log is redacted like its runtime's.
      logRawErrors: runtimeOptions.logRawErrors,
    });
    recovery.start();
  }
  let closing: Promise<void> | undefined;
  const close = async (closeOptions?: CloseOptions) => {
    // No takeover starts once the loop stopped; one decided meanwhile is handed off below.
    await recovery?.stop();
    await runtime.close(closeOptions);
  };
  return {
    runtime,
    recovery,
    stop: () => void recovery?.stop(),
    close: (closeOptions) => {
      closing ??= close(closeOptions);
      return closing;
    },
  };
}
