import type { AgentRuntimeDriver, AgentRuntimeStore } from '../index';
import type { manualClock } from './kit-fixtures';

export interface ConformanceTarget {
  driver: AgentRuntimeDriver;
  /** Writes a raw record for `runId` behind the store's back (to test corrupt records). */
  corrupt: (runId: string, record: unknown) => Promise<void>;
  /** Replaces the stored event at `revision` behind the store's back (a corrupt event row). */
  corruptEvent: (runId: string, revision: number, event: unknown) => Promise<void>;
  close?: () => Promise<void>;
}

/** What the conformance cases in the other files see of the suite's current test. */
export interface ConformanceContext {
  readonly target: ConformanceTarget;
  readonly store: AgentRuntimeStore;
  readonly clock: ReturnType<typeof manualClock>;
  /** A fresh run id. */
  runId(): string;
  /** Creates and acquires a run (`owner-a`, 1 s lease); its guard is at the acquired revision. */
  acquired(
    id?: string,
    owner?: string,
  ): Promise<{
    id: string;
    run: Awaited<ReturnType<AgentRuntimeStore['acquireRun']>>;
    guard: { owner: string; fencingToken: number; expectedRevision: number };
  }>;
}
