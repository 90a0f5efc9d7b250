import { describe, expect, it } from 'vitest';
import { StoreRecordError } from '../../errors/store-record-error';
import { controlRequestsOf } from '../control-requests';
import { createMemoryDriver } from '../driver/memory-driver';

const T0 = new Date('2026-12-04T12:00:00.000Z');
const yes = { approvalId: 'approval-1', approved: true };

function requests() {
  const driver = createMemoryDriver();
  const controlRequests = controlRequestsOf(driver, async () => T0);
  if (!controlRequests) throw new Error('the memory driver stores control requests');
  return { driver, controlRequests };
}

describe('control requests check answers as the approvals route does', () => {
  it('records and reads back the answers of the approvals body', async () => {
    const { controlRequests } = requests();
    const approvals = [yes, { approvalId: 'approval-2', approved: false, reason: 'too much' }];
    const request = { runId: 'run-1', requestId: 'r-1', kind: 'approvals' as const, approvals };
    expect(await controlRequests.record(request)).toBe(true);
    expect(await controlRequests.pending(['run-1'])).toEqual([
      { ...request, createdAt: T0.toISOString() },
    ]);
  });

  it.each([
    ['no answers', []],
    ['one id twice', [yes, { ...yes, approved: false }]],
    ['an unknown field', [{ ...yes, toolName: 'pay' }]],
    ['a reason too long', [{ ...yes, reason: 'r'.repeat(2_001) }]],
  ])('refuses to record %s', async (_name, approvals) => {
    const { controlRequests } = requests();
    const request = { runId: 'run-1', requestId: 'r-1', kind: 'approvals' as const, approvals };
    await expect(controlRequests.record(request)).rejects.toThrow();
    expect(await controlRequests.pending(['run-1'])).toEqual([]);
  });

  it('refuses a stored row whose answers the route would refuse, naming the run', async () => {
    const { driver, controlRequests } = requests();
    const row = {
      runId: 'run-1',
      requestId: 'r-1',
      kind: 'approvals',
      approvals: [yes, yes],
      createdAt: T0.toISOString(),
    };
    await driver.appendControlRequest?.('run-1', row as never);
    const read = controlRequests.pending(['run-1']);
    await expect(read).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(read).rejects.toMatchObject({ runId: 'run-1' });
  });
});
