'use client';

import { useRunStatus } from '@runlight/react';
import type { ReactNode } from 'react';
import { cx, ElapsedText } from '@/lib/runlight-ui';

export interface StalledBannerProps {
  runId: string;
  /**
   * Whether anything will pick the run up: true when the deployment runs Runlight's recovery
   * (`createRunRecovery`) or another worker takes over expired leases; false when nothing
   * does. The banner says so — a user should know whether to wait or to act.
   */
  recovers: boolean;
  /** Texts to replace (i18n). */
  text?: Partial<Record<'title' | 'recovering' | 'stuck', string>>;
  /** An action for a run nothing recovers, e.g. a "Start again" button. */
  children?: ReactNode;
  className?: string;
}

const TEXT = {
  title: 'The worker stopped responding',
  recovering:
    'Another worker will take the run over and continue from its last saved step. Nothing to do; this updates by itself.',
  stuck:
    'Nothing will resume this run: no worker takes over stalled runs here. It stays stopped until it is started again.',
};

/**
 * Shown while the run is stalled — its owner's lease expired on the server clock and nobody
 * writes — and nothing otherwise. It says whether anything will recover the run, and how long
 * it has been stalled (from the lease expiry). Announced once when it appears.
 *
 * @example
 * <StalledBanner runId={runId} recovers />
 * <StalledBanner runId={runId} recovers={false}><Button onClick={restart}>Start again</Button></StalledBanner>
 */
export function StalledBanner({ runId, recovers, text, children, className }: StalledBannerProps) {
  const status = useRunStatus(runId);
  const words = { ...TEXT, ...text };
  const stalled = status.activity.kind === 'stalled';
  return (
    <div role="status" aria-live="polite" data-slot="runlight-stalled-banner">
      {stalled ? (
        <div
          data-recovers={recovers ? '' : undefined}
          className={cx(
            'flex flex-col gap-2 rounded-lg border bg-card px-4 py-3 text-sm text-card-foreground',
            recovers ? 'border-runlight-warning/50' : 'border-runlight-danger/50',
            className,
          )}
        >
          <p className="flex items-baseline justify-between gap-3 font-medium">
            <span className={recovers ? 'text-runlight-warning' : 'text-runlight-danger'}>
              {words.title}
            </span>
            <ElapsedText status={status} className="text-xs font-normal" />
          </p>
          <p>{recovers ? words.recovering : words.stuck}</p>
          {children}
        </div>
      ) : null}
    </div>
  );
}
