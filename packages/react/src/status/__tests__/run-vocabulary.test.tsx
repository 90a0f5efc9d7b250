import { createRunlightClient } from '@runlight/client';
import type { AgentRun, RunOperation } from '@runlight/protocol';
import { at, modelRequestOperation, operationEvent, RUN_ID, snapshot } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../__tests__/fake-run-server';
import { settle, useFakeClock } from '../../__tests__/harness';
import { RunlightProvider } from '../../provider/runlight-provider';
import { RunTimeline } from '../../timeline/run-timeline';
import { OperationIndicator } from '../operation-indicator';
import { RunStatus } from '../run-status';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** Attempt `attempt` of step 0's model request in `phase` (a retry counts from attempt 1). */
function attempt(
  number: number,
  phase: RunOperation['phase'],
  times: { startedAt: number; firstOutputAt?: number; endedAt?: number },
  extra: Partial<RunOperation> = {},
): RunOperation {
  const operation = modelRequestOperation(phase, {
    startedAt: at(times.startedAt),
    ...(times.firstOutputAt === undefined ? {} : { firstOutputAt: at(times.firstOutputAt) }),
    ...(times.endedAt === undefined ? {} : { endedAt: at(times.endedAt) }),
  });
  return {
    ...operation,
    id: `model-request:step-0:attempt-${number}`,
    attempt: number,
    ...(number > 1 ? { requestStartedAt: at(1) } : {}),
    ...extra,
  };
}

const FAILED_FIRST = attempt(
  1,
  'failed',
  { startedAt: 1, endedAt: 2 },
  { failureReason: 'rate_limited', willRetry: true },
);
const SECOND = attempt(2, 'started', { startedAt: 3 });

interface Moment {
  name: string;
  /** The client's (and server's) clock, in seconds after the run's creation. */
  now: number;
  /** The operation history, in order; the run's `lastOperation` is the last one. */
  operations: RunOperation[];
  run?: Partial<AgentRun>;
  /** What `RunStatus` and `OperationIndicator` say (label, and failure detail after a colon). */
  says: string;
  /** The timeline row that shows the same moment. */
  row: 'in-flight' | 'retry wait' | { operationId: string };
  /** The status's time also appears in that row, as the request's time since its first attempt. */
  requestTime?: boolean;
  /** `RunlightProvider`'s `recovers`: the deployment recovers stalled runs. */
  recovers?: boolean;
}

const MOMENTS: Moment[] = [
  {
    name: 'the wait for a first attempt',
    now: 2,
    operations: [attempt(1, 'started', { startedAt: 1 })],
    says: 'Waiting for the model',
    row: 'in-flight',
  },
  {
    name: 'the wait before a retry',
    now: 2.6,
    operations: [attempt(1, 'started', { startedAt: 1 }), FAILED_FIRST],
    says: 'Waiting to retry the model (attempt 2 of the request)',
    row: 'retry wait',
    requestTime: true,
  },
  {
    name: 'a retry attempt waiting for its first output',
    now: 3.6,
    operations: [FAILED_FIRST, SECOND],
    says: 'Waiting for the model (attempt 2 of the request)',
    row: 'in-flight',
    requestTime: true,
  },
  {
    name: 'a retry attempt streaming',
    now: 5,
    operations: [FAILED_FIRST, { ...SECOND, phase: 'first-output', firstOutputAt: at(4) }],
    says: 'Writing the answer',
    row: 'in-flight',
  },
  {
    name: 'a stalled run where nothing recovers it (the default claims no recovery)',
    now: 9,
    operations: [attempt(1, 'first-output', { startedAt: 1, firstOutputAt: 2 })],
    run: { leaseExpiresAt: at(6) },
    says: 'The worker stopped responding',
    row: 'in-flight',
  },
  {
    name: 'a stalled run where recovery runs (RunlightProvider recovers)',
    now: 9,
    operations: [attempt(1, 'first-output', { startedAt: 1, firstOutputAt: 2 })],
    run: { leaseExpiresAt: at(6) },
    says: 'The worker stopped responding — recovering',
    row: 'in-flight',
    recovers: true,
  },
  ...(
    [
      ['storage_conflict', 'Failed: Storage conflict'],
      ['storage_unavailable', 'Failed: The run store was unavailable'],
      ['ownership_lost', 'Failed: Another worker took over'],
      ['provider_failure', 'Failed: The model provider failed'],
    ] as const
  ).map(
    ([code, says]): Moment => ({
      name: `a run failed ${code}`,
      now: 20,
      operations: [
        attempt(
          1,
          'failed',
          { startedAt: 1, firstOutputAt: 2, endedAt: 4 },
          code === 'provider_failure' ? { failureReason: 'server_error', willRetry: false } : {},
        ),
      ],
      run: {
        status: 'failed',
        owner: null,
        failure: { code, operationId: 'model-request:step-0:attempt-1' },
        updatedAt: at(4),
      },
      says,
      row: { operationId: 'model-request:step-0:attempt-1' },
    }),
  ),
];

function setup(moment: Moment) {
  const history = moment.operations.map((operation, index) => operationEvent(2 + index, operation));
  const revision = 1 + history.length;
  const server = fakeRunServer({
    json: snapshot(revision, { lastOperation: moment.operations.at(-1) ?? null, ...moment.run }),
  });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (String(input).includes('/operations')) {
      return Response.json({ runId: RUN_ID, operations: history, nextAfter: null, revision });
    }
    return server.fetch(input, init);
  };
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider
      client={client}
      queryClient={new QueryClient()}
      recovers={moment.recovers ?? false}
    >
      {children}
    </RunlightProvider>
  );
  return { wrapper };
}

const text = (element: Element | null | undefined, part: string) =>
  element?.querySelector(`[data-runlight-part="${part}"]`)?.textContent ?? null;

describe('one vocabulary: RunStatus, OperationIndicator and RunTimeline say the same', () => {
  it.each(MOMENTS)('$name', async (moment) => {
    useFakeClock(at(moment.now));
    const { wrapper } = setup(moment);
    const { container } = render(
      <>
        <RunStatus runId={RUN_ID} />
        <OperationIndicator runId={RUN_ID} data-testid="indicator" />
        <RunTimeline runId={RUN_ID} data-testid="timeline" />
      </>,
      { wrapper },
    );
    await settle();
    const status = screen.getByRole('status');
    const label = text(status, 'label');
    const detail = text(status, 'detail');
    expect(detail === null ? label : `${label}: ${detail}`).toBe(moment.says);
    expect(screen.getByTestId('indicator').getAttribute('aria-label')).toBe(moment.says);

    const timeline = container.querySelector('[data-runlight="timeline"]');
    const row =
      moment.row === 'in-flight'
        ? timeline?.querySelector('tr[data-runlight-row="operation"][data-in-flight]')
        : moment.row === 'retry wait'
          ? timeline?.querySelector('tr[data-runlight-row="gap"][data-in-flight]')
          : timeline?.querySelector(`tr[data-operation-id="${moment.row.operationId}"]`);
    expect(row, 'the timeline shows the moment').toBeTruthy();
    const result = text(row, 'result') ?? '';
    // The provider's reason stays on its row as well: `(server error)`.
    expect(result.startsWith(moment.says)).toBe(true);
    expect(row?.textContent).not.toMatch(/\(other\)|tools, approvals or other work/);
    if (moment.requestTime) {
      const elapsed = text(status, 'elapsed');
      expect(elapsed).not.toBeNull();
      expect(text(row, 'request-time')).toBe(` · ${elapsed} since attempt 1 began`);
    }
  });

  it('a finished retry wait reads in the past tense, and a retry names its time since attempt 1 apart from its total', async () => {
    const moment: Moment = {
      name: 'completed after a retry',
      now: 9,
      operations: [
        FAILED_FIRST,
        { ...SECOND, phase: 'completed', firstOutputAt: at(4), endedAt: at(5) },
      ],
      run: { status: 'completed', owner: null, updatedAt: at(5) },
      says: 'Completed',
      row: 'retry wait',
    };
    useFakeClock(at(moment.now));
    const { container } = render(<RunTimeline runId={RUN_ID} />, {
      wrapper: setup(moment).wrapper,
    });
    await settle();
    const gap = container.querySelector('tr[data-runlight-row="gap"]');
    expect(gap?.getAttribute('data-retry-attempt')).toBe('2');
    expect(gap?.querySelector('th')?.textContent).toBe('Retry wait');
    // The run is over: nothing reads as still waiting.
    expect(text(gap, 'result')).toBe('Waited to retry the model (attempt 2 of the request)');
    expect(container.textContent).not.toMatch(/Waiting/);
    const retried = container.querySelector(
      'tr[data-operation-id="model-request:step-0:attempt-2"]',
    );
    expect(text(retried, 'total-text')).toBe('2.0 s');
    // Two durations on one row, each named: the attempt's total, and the request's time since
    // its first attempt began (what the status counted while it waited).
    expect(text(retried, 'result')).toBe('completed · 4.0 s since attempt 1 began');
  });

  it('an operation a new owner closed on takeover reads so, not as a model failure', async () => {
    const moment: Moment = {
      name: 'taken over',
      now: 12,
      operations: [
        attempt(1, 'failed', { startedAt: 1, firstOutputAt: 2, endedAt: 6 }),
        {
          ...modelRequestOperation('completed', {
            step: 1,
            startedAt: at(6),
            firstOutputAt: at(7),
            endedAt: at(8),
          }),
          id: 'model-request:step-1:attempt-1',
        },
      ],
      run: { status: 'completed', owner: 'worker-b', updatedAt: at(8) },
      says: 'Completed',
      row: { operationId: 'model-request:step-0:attempt-1' },
    };
    useFakeClock(at(moment.now));
    const { container } = render(<RunTimeline runId={RUN_ID} />, {
      wrapper: setup(moment).wrapper,
    });
    await settle();
    const row = container.querySelector('tr[data-operation-id="model-request:step-0:attempt-1"]');
    expect(text(row, 'result')).toBe('failed: Another worker took over');
  });

  it.each([
    ['storage_conflict', 'Failed: Storage conflict'],
    ['ownership_lost', 'Failed: Another worker took over'],
  ] as const)(
    'a run failed %s on an attempt recorded "other" reads %s, not "failed (other)"',
    async (code, says) => {
      const moment: Moment = {
        name: code,
        now: 9,
        operations: [
          attempt(
            1,
            'failed',
            { startedAt: 1, endedAt: 4 },
            { failureReason: 'other', willRetry: false },
          ),
        ],
        run: {
          status: 'failed',
          owner: null,
          failure: { code, operationId: 'model-request:step-0:attempt-1' },
          updatedAt: at(4),
        },
        says,
        row: { operationId: 'model-request:step-0:attempt-1' },
      };
      useFakeClock(at(moment.now));
      const { container } = render(<RunTimeline runId={RUN_ID} />, {
        wrapper: setup(moment).wrapper,
      });
      await settle();
      const row = container.querySelector('tr[data-operation-id="model-request:step-0:attempt-1"]');
      expect(text(row, 'result')).toBe(says);
    },
  );
});
