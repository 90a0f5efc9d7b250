import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { refused } from '../agent-runtime-types';
import { applyControlRequest } from '../control/apply-control-request';
import { ApprovalRefusedError, NotPausedHereError } from '../control/approval-answers';
import type { RuntimeLogEntry } from '../run-options';

const answer = {
  runId: 'run-1',
  requestId: 'approvals:approval-1',
  kind: 'approvals' as const,
  approvals: [{ approvalId: 'approval-1', approved: true }],
  createdAt: '2026-12-01T00:00:00.000Z',
};

/** Whether a claimed answer whose resume rejected with `error` is marked applied. */
async function markedApplied(error: unknown) {
  const logs: RuntimeLogEntry[] = [];
  const applied = await applyControlRequest(answer, {
    cancel: async () => true,
    resume: () => refused(error),
    log: (entry) => logs.push(entry),
  });
  return { applied: await applied.effect, logs };
}

describe('a claimed answer is marked applied only when its effect is known', () => {
  it('a refusal of the answer itself is final: marked applied, never tried again', async () => {
    for (const error of [
      new ApprovalRefusedError('run_executing', 'executing'),
      new ApprovalRefusedError('unknown_approval', 'unknown'),
      new InvalidTransitionError('run-1', 'run-ended', 'ended'),
    ]) {
      expect((await markedApplied(error)).applied).toBe(true);
    }
  });

  it('a run this process does not keep paused says nothing of the answer: left for whoever can apply it', async () => {
    const { applied, logs } = await markedApplied(new NotPausedHereError('run-1'));
    expect(applied).toBe(false);
    expect(logs).toMatchObject([{ level: 'warn', runId: 'run-1' }]);
  });

  it('a resumed execution that failed is not known to have applied it either', async () => {
    const { applied, logs } = await markedApplied(new Error('store down'));
    expect(applied).toBe(false);
    expect(logs).toMatchObject([{ level: 'error' }]);
  });
});
