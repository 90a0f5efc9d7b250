import { defaultRunStatusLabels } from '@runlight/client';
import type { AgentRun, AssistantCheckpoint, FailureCode } from '@runlight/protocol';
import { FAILURE_CODES } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  compactionOperation,
  modelRequestOperation,
  RUN_ID,
  snapshot,
} from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advance, harness, settle, useFakeClock } from '../../__tests__/harness';
import { OperationIndicator } from '../operation-indicator';
import { RunStatus } from '../run-status';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/**
 * One row per activity kind: the run as the server stores it, the label, and the shown time
 * when the client clock reads T0 + 10 s (then 2.5 s later) — counted from the server's
 * timestamp named in `from`, never from when the page connected.
 */
const kinds: Array<{
  kind: string;
  run: Partial<AgentRun>;
  assistant?: AssistantCheckpoint;
  label: string;
  from: string;
  shown: string;
  later: string;
}> = [
  {
    kind: 'queued',
    run: { status: 'queued', owner: null, fencingToken: 0 },
    label: 'Queued',
    from: 'createdAt T0',
    shown: '10 s',
    later: '12 s',
  },
  {
    kind: 'compacting',
    run: {
      lastOperation: compactionOperation('started', {
        id: 'compact-step-0',
        step: 0,
        startedAt: at(4),
      }),
    },
    label: 'Compacting the context',
    from: 'startedAt T0+4',
    shown: '6.0 s',
    later: '8.5 s',
  },
  {
    kind: 'waiting-for-model',
    run: { lastOperation: modelRequestOperation('started', { startedAt: at(3) }) },
    label: 'Waiting for the model',
    from: 'startedAt T0+3',
    shown: '7.0 s',
    later: '9.5 s',
  },
  {
    kind: 'streaming',
    run: {
      lastOperation: modelRequestOperation('first-output', {
        startedAt: at(3),
        firstOutputAt: at(8.8),
      }),
    },
    label: 'Writing the answer',
    from: 'firstOutputAt T0+8.8',
    shown: '1.2 s',
    later: '3.7 s',
  },
  {
    kind: 'awaiting-approval',
    run: { lastOperation: modelRequestOperation('completed', { endedAt: at(6) }) },
    assistant: { revision: 4, message: approvalMessage },
    label: 'Waiting for your approval',
    from: 'endedAt T0+6',
    shown: '4.0 s',
    later: '6.5 s',
  },
  {
    kind: 'working',
    run: { lastOperation: modelRequestOperation('completed', { endedAt: at(9) }) },
    label: 'Working',
    from: 'endedAt T0+9',
    shown: '1.0 s',
    later: '3.5 s',
  },
  {
    kind: 'completed',
    run: { status: 'completed', owner: null, updatedAt: at(7.5) },
    label: 'Completed',
    from: 'createdAt → updatedAt',
    shown: '7.5 s',
    later: '7.5 s',
  },
  {
    kind: 'failed',
    run: { status: 'failed', owner: null, failure: { code: 'ownership_lost' }, updatedAt: at(65) },
    label: 'Failed',
    from: 'createdAt → updatedAt',
    shown: '1 min 05 s',
    later: '1 min 05 s',
  },
  {
    kind: 'cancelled',
    run: { status: 'cancelled', owner: null, updatedAt: at(12) },
    label: 'Cancelled',
    from: 'createdAt → updatedAt',
    shown: '12 s',
    later: '12 s',
  },
];

describe('RunStatus', () => {
  it.each(kinds)('shows $kind with its label and the time since $from', async (row) => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5, row.run, row.assistant ?? null) });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('data-activity')).toBe(row.kind);
    expect(status.querySelector('[data-runlight-part="label"]')?.textContent).toBe(row.label);
    expect(status.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe(row.shown);
    await advance(2500);
    expect(status.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe(row.later);
  });

  it.each([
    [
      'between a failed attempt and its retry',
      {
        phase: 'failed',
        attempt: 2,
        willRetry: true,
        failureReason: 'rate_limited',
        endedAt: at(8),
      },
      'Waiting to retry the model (attempt 3 of the request)',
    ],
    [
      'during a retry attempt',
      { phase: 'started', attempt: 2 },
      'Waiting for the model (attempt 2 of the request)',
    ],
  ] as const)(
    'says which retry it waits for %s, timed from the first attempt',
    async (_when, retry, label) => {
      useFakeClock(at(10));
      const operation = {
        ...modelRequestOperation(retry.phase, { startedAt: at(7) }),
        ...retry,
        requestStartedAt: at(3),
      };
      const { wrapper } = harness({ json: snapshot(5, { lastOperation: operation }) });
      render(<RunStatus runId={RUN_ID} />, { wrapper });
      await settle();
      const status = screen.getByRole('status');
      expect(status.getAttribute('data-activity')).toBe('waiting-for-model');
      expect(status.querySelector('[data-runlight-part="label"]')?.textContent).toBe(label);
      expect(status.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe('7.0 s');
    },
  );

  it('the retry label is replaceable (i18n)', async () => {
    useFakeClock(at(10));
    const operation = { ...modelRequestOperation('started'), attempt: 3, requestStartedAt: at(0) };
    const { wrapper } = harness({ json: snapshot(5, { lastOperation: operation }) });
    render(
      <RunStatus runId={RUN_ID} labels={{ waitingForAttempt: (n) => `Warte (Versuch ${n})` }} />,
      {
        wrapper,
      },
    );
    await settle();
    expect(screen.getByRole('status').textContent).toContain('Warte (Versuch 3)');
  });

  it('shows loading with its label and no time before the snapshot arrives', () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5) });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    const status = screen.getByRole('status');
    expect(status.getAttribute('data-activity')).toBe('loading');
    expect(status.textContent).toBe('Loading…');
  });

  it('corrects the time by the clock offset the snapshot measured (client clock 5 s behind)', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: {
        ...snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(3) }) }),
        serverTime: at(15),
      },
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    // Server clock reads T0+15 while the client reads T0+10: 12 s since startedAt, not 7 s.
    expect(screen.getByRole('status').textContent).toContain('12 s');
  });

  it('never shows a negative time when the start lies ahead of the client clock', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(30) }) }),
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(screen.getByRole('status').textContent).toContain('0.0 s');
  });

  it.each(FAILURE_CODES.map((code) => [code, defaultRunStatusLabels.failure[code]] as const))(
    'names the failure %s as "%s" (no provider text)',
    async (code: FailureCode, text) => {
      useFakeClock(at(10));
      const { wrapper } = harness({
        json: snapshot(5, { status: 'failed', owner: null, failure: { code } }),
      });
      render(<RunStatus runId={RUN_ID} />, { wrapper });
      await settle();
      const status = screen.getByRole('status');
      expect(status.getAttribute('data-failure')).toBe(code);
      expect(status.querySelector('[data-runlight-part="detail"]')?.textContent).toBe(text);
    },
  );

  it('is a polite live region whose ticking time is hidden from screen readers', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(
      status.querySelector('[data-runlight-part="elapsed"]')?.getAttribute('aria-hidden'),
    ).toBe('true');
  });

  it('takes overriding labels for another language, keeping the defaults it does not name', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { status: 'failed', owner: null, failure: { code: 'provider_failure' } }),
    });
    render(
      <RunStatus
        runId={RUN_ID}
        labels={{
          activity: { failed: 'Fehlgeschlagen' },
          failure: { provider_failure: 'Der Modellanbieter ist ausgefallen' },
        }}
      />,
      { wrapper },
    );
    await settle();
    expect(screen.getByRole('status').textContent).toBe(
      'FehlgeschlagenDer Modellanbieter ist ausgefallen5.0 s',
    );
  });

  it('renders headless through a render prop, inside the same live region', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(4) }) }),
    });
    render(
      <RunStatus runId={RUN_ID}>
        {(activity, ms, status) => <b>{`${activity.kind}|${ms}|${status.label}`}</b>}
      </RunStatus>,
      { wrapper },
    );
    await settle();
    expect(screen.getByRole('status').textContent).toBe(
      'waiting-for-model|6000|Waiting for the model',
    );
    await advance(1000);
    expect(screen.getByRole('status').textContent).toBe(
      'waiting-for-model|7000|Waiting for the model',
    );
  });

  it('renders as its child element with asChild, merging class names', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(4) }) }),
    });
    render(
      <RunStatus runId={RUN_ID} asChild className="from-status" unstyled>
        <p className="mine" />
      </RunStatus>,
      { wrapper },
    );
    await settle();
    const status = screen.getByRole('status');
    expect(status.tagName).toBe('P');
    expect(status.className).toBe('from-status mine');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.textContent).toBe('Waiting for the model6.0 s');
  });
});

describe('OperationIndicator', () => {
  it('has the status as its accessible name and spins only while the run is busy', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(<OperationIndicator runId={RUN_ID} />, { wrapper });
    await settle();
    const indicator = screen.getByRole('img', { name: 'Waiting for the model' });
    expect(indicator.hasAttribute('data-busy')).toBe(true);
    server.send({
      type: 'run-status',
      runId: RUN_ID,
      revision: 6,
      at: at(6),
      change: 'failed',
      status: 'failed',
      owner: null,
      fencingToken: 1,
      failure: { code: 'storage_conflict' },
    });
    await settle();
    const failed = screen.getByRole('img', { name: 'Failed: Storage conflict' });
    expect(failed.hasAttribute('data-busy')).toBe(false);
  });
});
