import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advance, harness, settle, useFakeClock } from '../../__tests__/harness';
import { OperationIndicator } from '../operation-indicator';
import { RunStatus } from '../run-status';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('a run whose worker stopped responding', () => {
  it('shows stalled the moment the lease expires on the server clock, with no new data', async () => {
    useFakeClock(at(10));
    const operation = modelRequestOperation('first-output', { firstOutputAt: at(2) });
    const { wrapper } = harness({
      // The server clock reads T0+15 while the client reads T0+10; the lease ends at T0+20.
      json: {
        ...snapshot(5, { lastOperation: operation, leaseExpiresAt: at(20) }),
        serverTime: at(15),
      },
    });
    render(
      <>
        <RunStatus runId={RUN_ID} />
        <OperationIndicator runId={RUN_ID} data-testid="indicator" />
      </>,
      { wrapper },
    );
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('data-activity')).toBe('streaming');

    await advance(4_990); // client T0+14.99 = server T0+19.99
    expect(status.getAttribute('data-activity')).toBe('streaming');
    await advance(10);
    expect(status.getAttribute('data-activity')).toBe('stalled');
    // Nothing here says recovery runs, so the label claims none.
    expect(status.querySelector('[data-runlight-part="label"]')?.textContent).toBe(
      'The worker stopped responding',
    );
    // Counted from the lease expiry, not from when the page noticed.
    await advance(3_000);
    expect(status.querySelector('[data-runlight-part="elapsed"]')?.textContent).toBe('3.0 s');
    expect(screen.getByTestId('indicator').getAttribute('aria-label')).toBe(
      'The worker stopped responding',
    );
  });

  it('says recovering only where recovery runs: a component prop over the provider', async () => {
    useFakeClock(at(30));
    const { wrapper } = harness({
      json: snapshot(5, {
        lastOperation: modelRequestOperation('started'),
        leaseExpiresAt: at(20),
      }),
    });
    render(
      <>
        <RunStatus runId={RUN_ID} recovers data-testid="recovers" />
        <RunStatus runId={RUN_ID} data-testid="default" />
        <OperationIndicator runId={RUN_ID} recovers data-testid="indicator" />
      </>,
      { wrapper },
    );
    await settle();
    const label = (id: string) =>
      screen.getByTestId(id).querySelector('[data-runlight-part="label"]')?.textContent;
    expect(label('recovers')).toBe('The worker stopped responding — recovering');
    expect(label('default')).toBe('The worker stopped responding');
    expect(screen.getByTestId('indicator').getAttribute('aria-label')).toBe(
      'The worker stopped responding — recovering',
    );
  });

  it('takes the recovering label from the labels too (i18n)', async () => {
    useFakeClock(at(30));
    const { wrapper } = harness({
      json: snapshot(5, {
        lastOperation: modelRequestOperation('started'),
        leaseExpiresAt: at(20),
      }),
    });
    render(
      <RunStatus
        runId={RUN_ID}
        recovers
        labels={{ stalledRecovering: 'Worker antwortet nicht — wird übernommen' }}
      />,
      { wrapper },
    );
    await settle();
    expect(screen.getByRole('status').textContent).toContain(
      'Worker antwortet nicht — wird übernommen',
    );
  });

  it('takes the stalled label from the labels (i18n)', async () => {
    useFakeClock(at(30));
    const { wrapper } = harness({
      json: snapshot(5, {
        lastOperation: modelRequestOperation('started'),
        leaseExpiresAt: at(20),
      }),
    });
    render(
      <RunStatus runId={RUN_ID} labels={{ activity: { stalled: 'Worker antwortet nicht' } }} />,
      {
        wrapper,
      },
    );
    await settle();
    expect(screen.getByRole('status').textContent).toContain('Worker antwortet nicht');
  });
});
