'use client';

import {
  type PendingApproval,
  pendingApprovals,
  selectRunView,
  useRun,
  useRunControls,
} from '@runlight/react';
import { useId, useState } from 'react';
import { cx } from '@/lib/runlight-ui';

type RunState = Parameters<typeof selectRunView>[0];

/** The tool calls of the run's message (live parts included) that wait for an answer. */
const selectPending = (state: RunState): PendingApproval[] =>
  pendingApprovals(selectRunView(state).message);

const sameApprovals = (a: PendingApproval[], b: PendingApproval[]) =>
  a.length === b.length && a.every((item, index) => item.approvalId === b[index]?.approvalId);

const TEXT = {
  title: 'Waiting for your approval',
  approve: 'Approve',
  deny: 'Deny',
  sending: 'Sending…',
  failed: 'The answer was not accepted. Try again.',
};

export interface ApprovalCardProps {
  runId: string;
  text?: Partial<typeof TEXT>;
  className?: string;
}

/**
 * The tool calls a run waits on, each with its input and Approve / Deny buttons wired to
 * `useRunControls(runId).answerApprovals`. Native buttons in reading order (Tab, Enter / Space);
 * the card is a labelled group, announced when it appears. The run's next state arrives on its
 * own stream — the card disappears when no call waits any more. Renders nothing otherwise.
 *
 * @example
 * <ApprovalCard runId={runId} />
 */
export function ApprovalCard({ runId, text, className }: ApprovalCardProps) {
  const approvals = useRun(runId, { select: selectPending, isEqual: sameApprovals });
  const { answerApprovals, answering, error } = useRunControls(runId);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const headingId = useId();
  const words = { ...TEXT, ...text };
  const open = approvals.filter((approval) => !answered.has(approval.approvalId));
  const answer = (approvalId: string, approved: boolean) => {
    setAnswered((previous) => new Set(previous).add(approvalId));
    // A refused answer (the typed result, never a rejection) shows its buttons again.
    void answerApprovals([{ approvalId, approved }]).then((result) => {
      if (result.ok) return;
      setAnswered((previous) => {
        const next = new Set(previous);
        next.delete(approvalId);
        return next;
      });
    });
  };
  return (
    <div role="status" aria-live="polite" data-slot="runlight-approval-card">
      {open.length === 0 ? null : (
        <section
          aria-labelledby={headingId}
          className={cx(
            'flex flex-col gap-3 rounded-lg border border-runlight-warning/50 bg-card p-4 text-sm text-card-foreground shadow-sm',
            className,
          )}
        >
          <h3 id={headingId} className="font-medium text-runlight-warning">
            {words.title}
          </h3>
          <ul className="flex flex-col gap-3">
            {open.map((approval) => (
              <li key={approval.approvalId} className="flex flex-col gap-2">
                <p>
                  <code className="rounded bg-muted px-1.5 py-0.5 font-mono text-foreground">
                    {approval.toolName}
                  </code>
                </p>
                <pre className="max-h-40 overflow-auto rounded bg-muted p-2 font-mono text-xs text-foreground">
                  {JSON.stringify(approval.input, null, 2)}
                </pre>
                <div className="flex gap-2">
                  <button
                    type="button"
                    disabled={answering}
                    onClick={() => answer(approval.approvalId, true)}
                    className="inline-flex h-8 items-center rounded-md bg-primary px-3 font-medium text-primary-foreground hover:bg-primary/90 focus-visible:outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50 disabled:opacity-50"
                  >
                    {words.approve} <span className="sr-only">{approval.toolName}</span>
                  </button>
                  <button
                    type="button"
                    disabled={answering}
                    onClick={() => answer(approval.approvalId, false)}
                    className="inline-flex h-8 items-center rounded-md border border-input bg-background px-3 font-medium text-foreground hover:bg-accent hover:text-accent-foreground focus-visible:outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50 disabled:opacity-50"
                  >
                    {words.deny} <span className="sr-only">{approval.toolName}</span>
                  </button>
                </div>
              </li>
            ))}
          </ul>
          {answering ? <p className="text-muted-foreground">{words.sending}</p> : null}
          {error !== null && !answering ? (
            <p role="alert" className="text-runlight-danger">
              {words.failed}
            </p>
          ) : null}
        </section>
      )}
    </div>
  );
}
