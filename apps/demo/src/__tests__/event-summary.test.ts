import { describe, expect, it } from 'vitest';
import { summariseEvent } from '../event-summary';

const status = (fields: Record<string, unknown>) => ({
  event: 'run-status',
  data: JSON.stringify({ type: 'run-status', owner: null, failure: null, ...fields }),
});

describe('the raw event log', () => {
  it.each([
    [{ change: 'completed', status: 'completed' }, 'completed'],
    [{ change: 'cancelled', status: 'cancelled' }, 'cancelled'],
    [
      { change: 'failed', status: 'failed', failure: { code: 'storage_conflict' } },
      'failed: storage_conflict',
    ],
    [{ change: 'acquired', status: 'running', owner: 'worker-a' }, 'acquired → running (worker-a)'],
    [{ change: 'lease-released', status: 'running' }, 'lease-released → running'],
  ])('a run-status event %o reads %s', (fields, line) => {
    expect(summariseEvent(status(fields))).toBe(line);
  });
});
