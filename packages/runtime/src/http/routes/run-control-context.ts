import type { RunHandle } from '../../runner/agent-runtime';
import type { ToolApprovalAnswer } from '../../runner/run-options';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';

/*
 * The types the run-control routes and the control-request recording share, in a file of their
 * own: `record-control-request.ts` needs them and `run-control.ts` needs its functions, so
 * neither imports the other back (no type-only file cycle).
 */

/** What the run-control routes need from the runtime. */
export interface RunControl {
  cancelRun(runId: string): void;
  resumeRun(options: { runId: string; approvals: readonly ToolApprovalAnswer[] }): RunHandle;
}

export interface RunControlContext {
  store: Pick<AgentRuntimeStore, 'getRun' | 'getSnapshot' | 'controlRequests' | 'now'>;
  control: Partial<RunControl>;
  maxBodyBytes: number;
  /** A store or runtime failure (404 for an unknown run, else a generic 500). */
  failure(error: unknown, runId: string): Response;
  /** Where a started or resumed execution's failure goes once the response is sent. */
  onError?: (error: unknown) => void;
}
