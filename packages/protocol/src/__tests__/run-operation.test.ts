import { describe, expect, it } from 'vitest';
import { ProtocolValidationError, parseRunOperation, safeParseRunOperation } from '../index';

const T0 = '2026-12-02T12:00:00.000Z';
const T1 = '2026-12-02T12:00:01.000+01:00';
const T2 = '2026-12-02T12:00:04.000Z';

const request = {
  id: 'model-request:step-0:call-1',
  kind: 'model-request',
  step: 0,
  startedAt: T0,
};
const compaction = { id: 'compaction:step-0', kind: 'compaction', step: 0, startedAt: T0 };

describe('RunOperationSchema: valid operations per phase', () => {
  it.each([
    ['model-request started', { ...request, phase: 'started' }],
    ['model-request first-output', { ...request, phase: 'first-output', firstOutputAt: T1 }],
    ['model-request completed without output', { ...request, phase: 'completed', endedAt: T1 }],
    [
      'model-request completed after output',
      { ...request, phase: 'completed', firstOutputAt: T1, endedAt: T1 },
    ],
    ['model-request failed', { ...request, phase: 'failed', endedAt: T1 }],
    ['model-request cancelled', { ...request, phase: 'cancelled', endedAt: T1 }],
    ['compaction started', { ...compaction, phase: 'started' }],
    [
      'compaction completed compacted',
      { ...compaction, phase: 'completed', endedAt: T1, outcome: 'compacted' },
    ],
    [
      'compaction completed not_needed',
      { ...compaction, phase: 'completed', endedAt: T1, outcome: 'not_needed' },
    ],
    ['compaction failed', { ...compaction, phase: 'failed', endedAt: T1 }],
    ['compaction cancelled', { ...compaction, phase: 'cancelled', endedAt: T1 }],
    ['model-request first attempt', { ...request, phase: 'started', attempt: 1 }],
    [
      'model-request retry attempt with the first start',
      { ...request, phase: 'started', attempt: 2, requestStartedAt: T1 },
    ],
    [
      'model-request failed attempt that will be retried',
      {
        ...request,
        phase: 'failed',
        endedAt: T1,
        attempt: 1,
        failureReason: 'rate_limited',
        willRetry: true,
      },
    ],
    [
      'model-request failed attempt with the time of the next one',
      {
        ...request,
        phase: 'failed',
        endedAt: T1,
        attempt: 1,
        failureReason: 'rate_limited',
        willRetry: true,
        retryAt: T2,
        maxAttempts: 3,
      },
    ],
    ...['server_error', 'timeout', 'network', 'other'].map(
      (failureReason) =>
        [
          `model-request failed: ${failureReason}`,
          { ...request, phase: 'failed', endedAt: T1, failureReason, willRetry: false },
        ] as [string, Record<string, unknown>],
    ),
    [
      'timestamps out of order (clocks move backwards)',
      { ...request, phase: 'completed', firstOutputAt: T0, endedAt: '2020-01-01T00:00:00Z' },
    ],
  ])('%s parses', (_name, value) => {
    expect(parseRunOperation(value)).toEqual(value);
  });
});

describe('RunOperationSchema: every phase rule rejects, naming the field and the rule', () => {
  it.each([
    [
      'first-output without firstOutputAt',
      { ...request, phase: 'first-output' },
      'firstOutputAt',
      'is required in phase first-output',
    ],
    ['completed without endedAt', { ...request, phase: 'completed' }, 'endedAt', 'is required'],
    ['failed without endedAt', { ...request, phase: 'failed' }, 'endedAt', 'is required'],
    ['cancelled without endedAt', { ...request, phase: 'cancelled' }, 'endedAt', 'is required'],
    [
      'started with endedAt',
      { ...request, phase: 'started', endedAt: T1 },
      'endedAt',
      'not allowed',
    ],
    [
      'started with firstOutputAt',
      { ...request, phase: 'started', firstOutputAt: T1 },
      'firstOutputAt',
      'not allowed in phase started',
    ],
    [
      'compaction in first-output',
      { ...compaction, phase: 'first-output', firstOutputAt: T1 },
      'phase',
      'not a phase of a compaction',
    ],
    [
      'compaction completed without outcome',
      { ...compaction, phase: 'completed', endedAt: T1 },
      'outcome',
      'is required on a completed compaction',
    ],
    [
      'compaction failed with outcome',
      { ...compaction, phase: 'failed', endedAt: T1, outcome: 'compacted' },
      'outcome',
      'only allowed on a completed compaction',
    ],
    [
      'outcome on a model request',
      { ...request, phase: 'completed', endedAt: T1, outcome: 'compacted' },
      'outcome',
      'only allowed on a compaction',
    ],
    [
      'model request without step',
      { id: 'model-request:x', kind: 'model-request', phase: 'started', startedAt: T0 },
      'step',
      'is required on a model-request',
    ],
    [
      'model request id without its step',
      { ...request, id: 'model-request:step-1', phase: 'started' },
      'id',
      'step-0',
    ],
    [
      'model request id naming step-10 for step 1',
      { ...request, id: 'model-request:step-10', step: 1, phase: 'started' },
      'id',
      'step-1',
    ],
    ['negative step', { ...request, step: -1, phase: 'started' }, 'step', 'zero or more'],
    [
      'timestamp without offset',
      { ...request, phase: 'started', startedAt: '2026-12-02T12:00:00' },
      'startedAt',
      'ISO 8601',
    ],
    [
      'timestamp that is not a date',
      { ...request, phase: 'started', startedAt: 'yesterday' },
      'startedAt',
      'ISO 8601',
    ],
    ['unknown phase', { ...request, phase: 'streaming' }, 'phase', ''],
    ['unknown kind', { ...request, kind: 'tool', phase: 'started' }, 'kind', ''],
    ['attempt 0', { ...request, phase: 'started', attempt: 0 }, 'attempt', '1 or more'],
    [
      'attempt not an integer',
      { ...request, phase: 'started', attempt: 1.5 },
      'attempt',
      'integer',
    ],
    [
      'requestStartedAt on a first attempt',
      { ...request, phase: 'started', attempt: 1, requestStartedAt: T0 },
      'requestStartedAt',
      'only allowed on an attempt after the first',
    ],
    [
      'requestStartedAt without an attempt',
      { ...request, phase: 'started', requestStartedAt: T0 },
      'requestStartedAt',
      'only allowed on an attempt after the first',
    ],
    [
      'requestStartedAt that is not a timestamp',
      { ...request, phase: 'started', attempt: 2, requestStartedAt: 'soon' },
      'requestStartedAt',
      'ISO 8601',
    ],
    [
      'failureReason outside phase failed',
      { ...request, phase: 'completed', endedAt: T1, failureReason: 'timeout' },
      'failureReason',
      'only allowed in phase failed',
    ],
    [
      'willRetry outside phase failed',
      { ...request, phase: 'started', willRetry: true },
      'willRetry',
      'only allowed in phase failed',
    ],
    [
      'retryAt on an attempt that will not be retried',
      { ...request, phase: 'failed', endedAt: T1, willRetry: false, retryAt: T2 },
      'retryAt',
      'only allowed on a failed attempt that will be retried',
    ],
    [
      'maxAttempts without willRetry',
      { ...request, phase: 'started', attempt: 1, maxAttempts: 3 },
      'maxAttempts',
      'only allowed on a failed attempt that will be retried',
    ],
    [
      'maxAttempts not above the failed attempt',
      { ...request, phase: 'failed', endedAt: T1, attempt: 3, willRetry: true, maxAttempts: 3 },
      'maxAttempts',
      'must be more than the attempt',
    ],
    [
      'retryAt not a timestamp',
      { ...request, phase: 'failed', endedAt: T1, willRetry: true, retryAt: 'in 3 s' },
      'retryAt',
      'ISO 8601',
    ],
    [
      'failureReason as provider text',
      { ...request, phase: 'failed', endedAt: T1, failureReason: 'Rate limit: key sk-123' },
      'failureReason',
      '',
    ],
    [
      'willRetry not a boolean',
      { ...request, phase: 'failed', endedAt: T1, willRetry: 'yes' },
      'willRetry',
      '',
    ],
    ...(['attempt', 'requestStartedAt', 'failureReason', 'willRetry'] as const).map(
      (field) =>
        [
          `${field} on a compaction`,
          {
            ...compaction,
            phase: 'failed',
            endedAt: T1,
            [field]: { attempt: 2, requestStartedAt: T0, failureReason: 'other', willRetry: false }[
              field
            ],
          },
          field,
          'only allowed on a model-request',
        ] as [string, Record<string, unknown>, string, string],
    ),
    [
      'free text smuggled in',
      { ...request, phase: 'failed', endedAt: T1, error: 'API key sk-123 invalid' },
      '(root)',
      'error',
    ],
  ])('%s', (_name, value, path, rule) => {
    const result = safeParseRunOperation(value);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(ProtocolValidationError.isInstance(result.error)).toBe(true);
    const issue = result.error.issues.find((candidate) => candidate.path === path);
    expect(issue, JSON.stringify(result.error.issues)).toBeDefined();
    expect(`${issue?.message}`).toContain(rule);
    expect(result.error.message).toContain('Invalid RunOperation');
    expect(() => parseRunOperation(value)).toThrow(ProtocolValidationError);
  });
});
