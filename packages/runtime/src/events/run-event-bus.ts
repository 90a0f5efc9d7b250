import type { RunEvent } from '@runlight/protocol';
import type { RunEventSource } from './event-hub';

/**
 * Where the runtime publishes every event of the runs it executes. The default is the
 * in-process `RunEventHub`; a bus across processes (e.g. PostgreSQL LISTEN/NOTIFY) implements
 * the same interface so an SSE client on instance B follows a run executing on instance A.
 */
export interface RunEventBus extends RunEventSource {
  publish(event: RunEvent): void;
  /** The run's execution ended in this process: its live-delta buffer may be dropped. */
  endRun(runId: string): void;
}
