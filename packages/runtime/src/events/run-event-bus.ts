import type { RunEvent } from '@runlight/protocol';
import type { RunEventSource } from './run-event-source';

/**
 * Where the runtime publishes every event of the runs it executes. The default is the
 * in-process `RunEventHub`; a bus across processes (e.g. PostgreSQL LISTEN/NOTIFY) implements
 * the same interface so an SSE client on instance B follows a run executing on instance A.
 */
export interface RunEventBus extends RunEventSource {
  publish(event: RunEvent): void;
  /** The run's execution ended in this process: its live-delta buffer may be dropped. */
  endRun(runId: string): void;
  /**
   * Optional: tells the other processes that a control request (a cancel, approval answers)
   * of `runId` was recorded, so the one executing the run reads it now instead of on its next
   * poll. Best effort: the poll still finds a request whose notification was lost.
   */
  notifyControlRequest?(runId: string): void;
  /** Optional: called with the run id when another process notified a control request. */
  onControlRequest?(listener: (runId: string) => void): () => void;
}
