import type { RunOperation } from '@runlight/protocol';
import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advance, harness, settle, useFakeClock } from '../../__tests__/harness';
import { RunStatus } from '../run-status';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** Attempt 1 failed at(8) with a 429; the SDK tries attempt 2 of 3 at at(13). */
const retried: RunOperation = {
  ...modelRequestOperation('failed', { startedAt: at(7), endedAt: at(8) }),
  attempt: 1,
  failureReason: 'rate_limited',
  willRetry: true,
  retryAt: at(13),
  maxAttempts: 3,
};

const part = (name: string) =>
  screen.getByRole('status').querySelector(`[data-runlight-part="${name}"]`);

describe('the retry countdown of RunStatus', () => {
  it("counts down to the record's retryAt: 'Retrying in 3 s (attempt 2 of 3)', then 'now'", async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5, { lastOperation: retried }) });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(part('countdown')?.textContent).toBe('Retrying in 3 s (attempt 2 of 3)');
    await advance(1_000);
    expect(part('countdown')?.textContent).toBe('Retrying in 2 s (attempt 2 of 3)');
    await advance(2_000);
    expect(part('countdown')?.textContent).toBe('Retrying now (attempt 2 of 3)');
  });

  it('counts on the server clock, so a reload shows the same count (client clock 5 s behind)', async () => {
    useFakeClock(at(6));
    const { wrapper } = harness({
      json: { ...snapshot(5, { lastOperation: retried }), serverTime: at(11) },
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(part('countdown')?.textContent).toBe('Retrying in 2 s (attempt 2 of 3)');
  });

  it('announces the wait once: the ticking countdown is hidden from screen readers', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5, { lastOperation: retried }) });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(part('countdown')?.getAttribute('aria-hidden')).toBe('true');
    expect(part('label')?.textContent).toBe('Waiting to retry the model (attempt 2 of 3)');
    expect(part('label')?.getAttribute('aria-hidden')).toBeNull();
  });

  it('takes its words from the labels (i18n); a record without retryAt shows the elapsed time', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5, { lastOperation: retried }) });
    render(
      <RunStatus
        runId={RUN_ID}
        labels={{ retryCountdown: (s, n, max) => `Neuer Versuch in ${s} s (${n}/${max})` }}
      />,
      { wrapper },
    );
    await settle();
    expect(part('countdown')?.textContent).toBe('Neuer Versuch in 3 s (2/3)');
    cleanup();

    const { retryAt: _retryAt, maxAttempts: _max, ...old } = retried;
    const older = harness({ json: snapshot(5, { lastOperation: old }) });
    render(<RunStatus runId={RUN_ID} />, { wrapper: older.wrapper });
    await settle();
    expect(part('countdown')).toBeNull();
    expect(part('elapsed')?.textContent).toBe('3.0 s');
  });
});
