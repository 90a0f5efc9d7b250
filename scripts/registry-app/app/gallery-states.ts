/**
 * Every moment a user can meet, as the server would serve it: a schema-valid snapshot (and an
 * operation history for the timeline) per run id, with times relative to `now` so the elapsed
 * times and countdowns read as they would live. The gallery's fake transport serves these.
 */
export interface GalleryState {
  readonly id: string;
  readonly title: string;
  readonly snapshot: unknown;
  readonly operations: unknown[];
}

type Operation = Record<string, unknown>;

export function galleryStates(now: number): GalleryState[] {
  const t = (seconds: number) => new Date(now + seconds * 1000).toISOString();
  const created = t(-40);
  const lease = t(60);
  const request = (step: number, attempt = 1): Operation => ({
    id: `model-request:step-${step}:call:attempt-${attempt}`,
    kind: 'model-request',
    step,
    attempt,
  });
  const run = (id: string, revision: number, extra: Record<string, unknown>) => ({
    id,
    status: 'running',
    owner: 'holder-1',
    revision,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: lease,
    createdAt: created,
    updatedAt: t(-1),
    ...extra,
  });
  const snapshot = (
    id: string,
    extra: Record<string, unknown>,
    message: unknown = null,
    revision = 6,
  ) => ({
    run: run(id, revision, extra),
    assistant: message === null ? null : { revision, message },
    revision,
    serverTime: t(0),
  });
  const events = (id: string, operations: Operation[]) =>
    operations.map((operation, index) => ({
      type: 'run-operation',
      runId: id,
      revision: index + 2,
      at: (operation.endedAt ?? operation.firstOutputAt ?? operation.startedAt) as string,
      operation,
    }));
  const text = (value: string, state: 'streaming' | 'done') => ({
    id: 'msg-1',
    role: 'assistant',
    parts: [{ type: 'text', text: value, state }],
  });
  const tool = (state: string, extra: Record<string, unknown> = {}) => ({
    id: 'msg-1',
    role: 'assistant',
    parts: [
      {
        type: 'tool-searchDocs',
        toolCallId: 'call-1',
        state,
        input: { query: 'lease expiry' },
        ...extra,
      },
    ],
  });

  const started0 = { ...request(0), phase: 'started', startedAt: t(-12) };
  const first = { ...started0, phase: 'first-output', firstOutputAt: t(-10.5) };
  const done0 = { ...first, phase: 'completed', endedAt: t(-6) };
  const failedAttempt = {
    ...request(0),
    phase: 'failed',
    startedAt: t(-2.4),
    endedAt: t(-1.8),
    failureReason: 'rate_limited',
    willRetry: true,
    retryAt: t(9.2),
    maxAttempts: 3,
  };
  const compaction = { id: 'compaction:step-1', kind: 'compaction', step: 1, startedAt: t(-3.1) };
  const finished = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    snapshot(id, {
      status,
      owner: null,
      leaseExpiresAt: null,
      lastOperation: done0,
      updatedAt: t(-27.6),
      ...extra,
    });

  return [
    {
      id: 'waiting',
      title: 'Waiting for the model',
      snapshot: snapshot('waiting', {
        lastOperation: { ...request(0), phase: 'started', startedAt: t(-3.2) },
      }),
      operations: [],
    },
    {
      id: 'retry',
      title: 'Retry countdown',
      snapshot: snapshot('retry', { lastOperation: failedAttempt }),
      operations: events('retry', [
        { ...request(0), phase: 'started', startedAt: t(-2.4) },
        failedAttempt,
      ]),
    },
    {
      id: 'streaming',
      title: 'Streaming',
      snapshot: snapshot(
        'streaming',
        { lastOperation: first },
        text('The lease is renewed on every owned write', 'streaming'),
      ),
      operations: [],
    },
    {
      id: 'working',
      title: 'Working: a tool runs',
      snapshot: snapshot('working', { lastOperation: done0 }, tool('input-available')),
      operations: [],
    },
    {
      id: 'between-steps',
      title: 'Between steps',
      snapshot: snapshot(
        'between-steps',
        { lastOperation: done0 },
        tool('output-available', { output: { hits: 3 } }),
      ),
      operations: events('between-steps', [started0, first, done0]),
    },
    {
      id: 'compacting',
      title: 'Compacting the context',
      snapshot: snapshot('compacting', { lastOperation: { ...compaction, phase: 'started' } }),
      operations: [],
    },
    {
      id: 'approval',
      title: 'Awaiting approval',
      snapshot: snapshot(
        'approval',
        { lastOperation: done0, owner: null, leaseExpiresAt: null },
        {
          id: 'msg-1',
          role: 'assistant',
          parts: [
            {
              type: 'tool-runCommand',
              toolCallId: 'call-1',
              state: 'approval-requested',
              input: { cmd: 'rm -rf ./build' },
              approval: { id: 'approval-1' },
            },
          ],
        },
      ),
      operations: [],
    },
    {
      id: 'stalled-recovers',
      title: 'Stalled, will recover',
      snapshot: snapshot('stalled-recovers', {
        lastOperation: first,
        leaseExpiresAt: t(-6.5),
      }),
      operations: [],
    },
    {
      id: 'stalled-stuck',
      title: 'Stalled, nothing recovers it',
      snapshot: snapshot('stalled-stuck', {
        lastOperation: first,
        leaseExpiresAt: t(-48),
      }),
      operations: [],
    },
    {
      id: 'completed',
      title: 'Completed',
      snapshot: finished('completed', 'completed'),
      operations: events('completed', [started0, first, done0]),
    },
    {
      id: 'failed-provider',
      title: 'Failed: provider',
      snapshot: finished('failed-provider', 'failed', {
        lastOperation: {
          ...request(0, 3),
          phase: 'failed',
          startedAt: t(-30),
          endedAt: t(-27.6),
          requestStartedAt: t(-38),
          failureReason: 'server_error',
          willRetry: false,
        },
        failure: { code: 'provider_failure', operationId: request(0, 3).id },
      }),
      operations: [],
    },
    {
      id: 'failed-storage',
      title: 'Failed: storage',
      snapshot: finished('failed-storage', 'failed', { failure: { code: 'storage_unavailable' } }),
      operations: [],
    },
    {
      id: 'failed-ownership',
      title: 'Failed: ownership lost',
      snapshot: finished('failed-ownership', 'failed', { failure: { code: 'ownership_lost' } }),
      operations: [],
    },
    {
      id: 'cancelled',
      title: 'Cancelled',
      snapshot: finished('cancelled', 'cancelled'),
      operations: [],
    },
  ];
}
