/** Records built by the reference reducers, for the reducer tests. */
import type { RunOperation } from '@runlight/protocol';
import { modelRequest } from '@runlight/test-utils';
import {
  type OwnerGuard,
  reduceAcquireRun,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
} from '../log/reducer';
import type { StoredRun } from '../log/stored-run';

export const NOW = new Date('2026-12-02T12:00:10.000Z');
export const LATER = new Date('2026-12-02T12:01:00.000Z');

/** A run acquired by `owner-a` (token 1, revision 2), then `extra` applied by the reducers. */
export function running(...operations: RunOperation[]): StoredRun {
  let record = reduceCreateRun(null, { runId: 'run-1' }, NOW).record;
  record = reduceAcquireRun(record, { owner: 'owner-a', leaseMs: 30_000 }, NOW).record;
  for (const operation of operations) {
    record = reduceRecordRunOperation(record, guardOf(record), operation, NOW).record;
  }
  return record;
}

export function guardOf(record: StoredRun, patch: Partial<OwnerGuard> = {}): OwnerGuard {
  return {
    owner: record.run.owner ?? 'nobody',
    fencingToken: record.run.fencingToken,
    expectedRevision: record.run.revision,
    ...patch,
  };
}

export function ended(status: 'completed' | 'cancelled'): StoredRun {
  const record = running();
  const result = reduceCommitTerminal(record, guardOf(record), { status }, NOW);
  if ('duplicate' in result) throw new Error('unexpected duplicate');
  return result.record;
}

export const firstOutput = (step: number, id?: string) => modelRequest(step, 'first-output', id);
