'use client';

import { defaultRunStatusLabels, describeFailure, formatElapsed } from '@runlight/react';
import { cx } from '@/lib/runlight-ui';

/** The fields of a run record the row shows (a `PublicAgentRun` has them all). */
export interface RunListRowRun {
  readonly id: string;
  readonly status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly failure: { readonly code: Parameters<typeof describeFailure>[0] } | null;
}

const STATUS_TEXT: Record<RunListRowRun['status'], string> = {
  queued: 'text-foreground',
  running: 'text-runlight-busy',
  completed: 'text-runlight-success',
  failed: 'text-runlight-danger',
  cancelled: 'text-foreground',
};

export interface RunListRowProps {
  run: RunListRowRun;
  /** Where the row links to, e.g. `/runs/${run.id}`. */
  href: string;
  labels?: typeof defaultRunStatusLabels;
  className?: string;
}

/**
 * One run of a list: its id, its status in words (a failure names its owner), how long it ran
 * (from its own timestamps) and when it started — one link per row, so Tab walks the list and
 * Enter opens a run. From the list's data, not a live connection per row.
 *
 * @example
 * <ul>{runs.map((run) => <RunListRow key={run.id} run={run} href={`/runs/${run.id}`} />)}</ul>
 */
export function RunListRow({
  run,
  href,
  labels = defaultRunStatusLabels,
  className,
}: RunListRowProps) {
  const status = run.status === 'running' ? labels.activity.working : labels.activity[run.status];
  const detail = run.status === 'failed' ? describeFailure(run.failure?.code, labels) : null;
  const ran = Math.max(0, Date.parse(run.updatedAt) - Date.parse(run.createdAt));
  return (
    <li data-slot="runlight-run-list-row" data-status={run.status} className={className}>
      <a
        href={href}
        className="grid grid-cols-[1fr_auto] items-baseline gap-x-4 gap-y-0.5 rounded-md px-3 py-2 text-sm text-foreground hover:bg-accent hover:text-accent-foreground focus-visible:outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
      >
        <span className="truncate font-mono">{run.id}</span>
        <span className="tabular-nums text-muted-foreground">
          {run.status === 'running' || run.status === 'queued' ? '' : formatElapsed(ran)}
        </span>
        <span className={cx('font-medium', STATUS_TEXT[run.status])}>
          {status}
          {detail === null ? null : <span className="font-normal text-foreground">: {detail}</span>}
        </span>
        <time dateTime={run.createdAt} className="text-muted-foreground">
          {run.createdAt.slice(0, 16).replace('T', ' ')} UTC
        </time>
      </a>
    </li>
  );
}
