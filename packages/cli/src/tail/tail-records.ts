import type { ActivityKind } from '@runlight/client';
import type { FailureCode } from '@runlight/protocol';

/** A tool call the run waits on an answer for. */
export interface AwaitedApproval {
  readonly approvalId: string;
  readonly toolName: string;
}

/**
 * What `runlight tail` reports, one record per line (`--json` prints them as they are). Times
 * are the records' own server timestamps, so a tail started mid-run — or again — prints the
 * same `at` for the same phase.
 */
export type TailRecord =
  | {
      readonly type: 'phase';
      readonly runId: string;
      readonly activity: ActivityKind;
      /** The status words, as `@runlight/react`'s `RunStatus` shows them. */
      readonly text: string;
      /** The server timestamp the phase began at (a finished run: when it ended); null if none. */
      readonly at: string | null;
      /** `at` minus the run's `createdAt`: elapsed on the server's clock. */
      readonly elapsedMs: number | null;
      readonly attempt?: number;
      /** A retry wait the record times: when the next attempt begins (server clock). */
      readonly retryAt?: string;
      readonly maxAttempts?: number;
      readonly failure?: FailureCode;
      readonly approvals?: readonly AwaitedApproval[];
      /**
       * Present when the phase began before a line already printed — a phase the run returns to
       * (the new owner of a taken-over run carrying on: `resumed`), or a fact from a writer whose
       * clock is behind: the line is dated at the latest time printed, so lines never go back in
       * time, and says when the phase began (`at`).
       */
      readonly line?: {
        readonly at: string;
        readonly elapsedMs: number | null;
        readonly resumed: boolean;
      };
    }
  | {
      readonly type: 'takeover';
      readonly runId: string;
      readonly text: string;
      /** True for a planned hand-off (the previous owner shut down gracefully), not a crash. */
      readonly planned?: true;
      /** When the new owner acquired the run (the event's commit time). */
      readonly at: string;
      readonly elapsedMs: number | null;
    }
  | {
      /**
       * The server stopped answering (`unreachable`: the client reports it offline) or answers
       * again (`reachable`). Dated on the estimated server clock when the client saw it; the
       * run's last known phase stays the line above.
       */
      readonly type: 'connection';
      readonly runId: string;
      readonly state: 'unreachable' | 'reachable';
      readonly text: string;
      readonly at: string;
      readonly elapsedMs: number | null;
    }
  | { readonly type: 'text'; readonly runId: string; readonly delta: string }
  | {
      readonly type: 'end';
      readonly runId: string;
      readonly status: 'completed' | 'failed' | 'cancelled';
      /** From `createdAt` to the terminal commit, on the server's clock. */
      readonly durationMs: number;
      readonly exitCode: number;
    }
  | {
      readonly type: 'error';
      readonly runId: string;
      readonly reason: 'access-refused' | 'not-found' | 'unavailable';
      readonly text: string;
      readonly exitCode: number;
    };

/** ms from `from` to `to` (server timestamps), never negative; null when either is missing. */
export function between(from: string | undefined, to: string | null | undefined): number | null {
  if (from === undefined || to == null) return null;
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}
