import type { AgUiResumeEntry } from '@assistant-ui/react-ag-ui';
import { RunlightAgent } from '@runlight/ag-ui/client';

/**
 * `RunlightAgent` with the two hooks assistant-ui's AG-UI runtime (`useAgUiRuntime`) lacks.
 *
 * - Reconnect: the runtime never calls `connectAgent()` — every run it starts goes through
 *   `agent.runAgent()`. So after a reload the page asks the runtime for one run
 *   (`thread.startRun`) and this agent answers that run with `connect()`: Runlight's resume route
 *   (a snapshot, then live), instead of starting a new run.
 * - Answer a dropped interrupt: after a reload while the run waits for approval, assistant-ui
 *   does not project the interrupt (see `approval.tsx`), so `useAgUiSubmitInterruptResponses`
 *   has nothing to answer. The page answers `agent.pendingInterrupts` with a run of the runtime
 *   whose parameters carry `resume`.
 */
export class ReconnectingRunlightAgent extends RunlightAgent {
  #reconnectOnNextRun = false;
  #resumeOnNextRun: AgUiResumeEntry[] | null = null;

  /** The next run the runtime starts reconnects to `runId` instead of starting one. */
  reconnectOnNextRun(): void {
    this.#reconnectOnNextRun = true;
  }

  /** The next run the runtime starts carries these answers to `pendingInterrupts`. */
  resumeOnNextRun(responses: AgUiResumeEntry[]): void {
    this.#resumeOnNextRun = responses;
  }

  override run(input: Parameters<RunlightAgent['run']>[0]) {
    if (this.#reconnectOnNextRun) {
      this.#reconnectOnNextRun = false;
      return this.connect(input);
    }
    return super.run(input);
  }

  // @ag-ui/client 1.0's `onInitialize` refuses a run that leaves `pendingInterrupts` unanswered,
  // so the answers go in the run's parameters (`prepareRunAgentInput` copies `resume` into the
  // input the route receives), not in a later step.
  override runAgent(...[parameters, ...rest]: Parameters<RunlightAgent['runAgent']>) {
    const resume = this.#resumeOnNextRun;
    if (resume === null) return super.runAgent(parameters, ...rest);
    this.#resumeOnNextRun = null;
    return super.runAgent({ ...parameters, resume }, ...rest);
  }
}
