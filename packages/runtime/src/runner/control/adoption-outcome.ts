import type { StaleControlRequest } from '../../store/control-requests';

/*
 * The outcome type in a leaf of its own: adopting an orphaned request ends a lost run with the
 * takeover's step, and the takeover reports the adoptions it made.
 */

/** How adopting one orphaned request went. */
export interface AdoptionOutcome {
  runId: string;
  requestId: string;
  kind: StaleControlRequest['kind'];
  /**
   * - `applied` — claimed here and applied: the cancel ends the run, the answers resume it in
   *   this process with what `resolveRun` returned;
   * - `refused` — claimed, but it can never apply (the run waits for other approvals);
   * - `ended` — claimed; `resolveRun` had nothing to continue the run with: ended `ownership_lost`;
   * - `deferred` — claimed; `resolveRun` threw: it is claimed again later;
   * - `skipped` — another process claimed it first, or the run is leased again.
   */
  result: 'applied' | 'refused' | 'ended' | 'deferred' | 'skipped';
}
