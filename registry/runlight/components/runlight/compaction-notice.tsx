'use client';

import { useRunStatus } from '@runlight/react';
import { useEffect, useState } from 'react';
import { cx, ElapsedText } from '@/lib/runlight-ui';

/** The start as a local time, after hydration (the server's time zone is not the reader's). */
function useLocalTime(iso: string | undefined): string | null {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    setText(iso === undefined ? null : new Date(iso).toLocaleTimeString());
  }, [iso]);
  return text;
}

export interface CompactionNoticeProps {
  runId: string;
  text?: Partial<Record<'title' | 'started', string>>;
  className?: string;
}

/**
 * While the run compacts its context: a notice with the compaction's original start — the
 * record's `startedAt`, so a reload or another tab shows the same start and the same time
 * spent — and nothing at any other moment.
 *
 * @example
 * <CompactionNotice runId={runId} />
 */
export function CompactionNotice({ runId, text, className }: CompactionNoticeProps) {
  const status = useRunStatus(runId);
  const compacting = status.activity.kind === 'compacting';
  const startedAt = compacting ? status.activity.operation?.startedAt : undefined;
  const local = useLocalTime(startedAt);
  return (
    <div role="status" aria-live="polite" data-slot="runlight-compaction-notice">
      {compacting ? (
        <div
          className={cx(
            'flex flex-wrap items-baseline gap-x-3 gap-y-1 rounded-lg border border-runlight-busy/40 bg-card px-4 py-3 text-sm text-card-foreground',
            className,
          )}
        >
          <span className="font-medium">{text?.title ?? status.label}</span>
          {startedAt === undefined ? null : (
            <span className="text-muted-foreground">
              {text?.started ?? 'started'}{' '}
              <time dateTime={startedAt}>{local ?? startedAt.slice(11, 19)}</time>
            </span>
          )}
          <ElapsedText status={status} />
        </div>
      ) : null}
    </div>
  );
}
