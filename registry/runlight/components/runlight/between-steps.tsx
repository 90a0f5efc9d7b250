'use client';

import { selectRunView, useRun, useRunStatus } from '@runlight/react';
import { cx, ElapsedText } from '@/lib/runlight-ui';

type RunState = Parameters<typeof selectRunView>[0];

/** The tools of the last step still running, by name ("" when none): a string compares cheaply. */
function runningTools(state: RunState): string {
  const parts = selectRunView(state).message?.parts ?? [];
  return parts
    .flatMap((part) => {
      const tool = part as { type: string; state?: string };
      if (!tool.type.startsWith('tool-') || tool.state !== 'input-available') return [];
      return [tool.type.slice('tool-'.length)];
    })
    .join(', ');
}

export interface BetweenStepsProps {
  runId: string;
  text?: Partial<Record<'tools' | 'next', string>>;
  className?: string;
}

/**
 * The gap between two steps: the model's request finished and the run is working — running the
 * tools it asked for ("Running tools: search, fetch"), or with the tools done and the next model
 * request not yet admitted ("Preparing the next step"). Timed from the end of the last model
 * request. Renders nothing at any other moment.
 *
 * @example
 * <BetweenSteps runId={runId} />
 */
export function BetweenSteps({ runId, text, className }: BetweenStepsProps) {
  const status = useRunStatus(runId);
  const tools = useRun(runId, { select: runningTools });
  const operation = status.activity.operation;
  const between =
    status.activity.kind === 'working' &&
    operation?.kind === 'model-request' &&
    operation.phase === 'completed';
  return (
    <div role="status" aria-live="polite" data-slot="runlight-between-steps">
      {between ? (
        <p className={cx('flex items-center gap-2 text-sm text-foreground', className)}>
          <span
            aria-hidden="true"
            className="size-3 animate-spin rounded-full border-2 border-current border-r-transparent text-runlight-busy motion-reduce:animate-none motion-reduce:border-r-current"
          />
          <span>
            {tools === ''
              ? (text?.next ?? 'Preparing the next step')
              : `${text?.tools ?? 'Running tools'}: ${tools}`}
          </span>
          <ElapsedText status={status} />
        </p>
      ) : null}
    </div>
  );
}
