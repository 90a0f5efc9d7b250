import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import RunStatus from '../status/RunStatus.svelte';
import Headless from './fixtures/Headless.svelte';
import Twice from './fixtures/Twice.svelte';
import { advance, harness, settle, useFakeClock } from './harness.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const statusStyles = () => document.head.querySelectorAll('style[data-runlight-style="status"]');
const waiting = () =>
  snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(3) }) });

describe('Svelte RunStatus', () => {
  it('counts the wait from the server timestamp and ticks, only the time changing', async () => {
    useFakeClock(at(10));
    const { context } = harness({ json: waiting() });
    render(RunStatus, { props: { runId: RUN_ID }, context });
    await settle();
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('Waiting for the model7.0 s');
    const label = status.querySelector('[data-runlight-part="label"]');
    await advance(2500);
    expect(status.textContent).toBe('Waiting for the model9.5 s');
    // The same label node: a tick rewrites the time, not the announced text.
    expect(status.querySelector('[data-runlight-part="label"]')).toBe(label);
  });

  it('shows loading, and no time, before the snapshot arrives', () => {
    useFakeClock(at(10));
    const { context } = harness({ json: waiting() });
    render(RunStatus, { props: { runId: RUN_ID }, context });
    const status = screen.getByRole('status');
    expect(status.getAttribute('data-activity')).toBe('loading');
    expect(status.textContent).toBe('Loading…');
  });

  it('renders headless through a snippet, inside the same live region', async () => {
    useFakeClock(at(10));
    const { context } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(4) }) }),
    });
    render(Headless, { props: { runId: RUN_ID }, context });
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.textContent).toBe('waiting-for-model|6000|Waiting for the model');
    await advance(1000);
    expect(status.textContent).toBe('waiting-for-model|7000|Waiting for the model');
  });

  it('follows its labels prop (i18n) and passes other attributes to its <div>', async () => {
    useFakeClock(at(10));
    const { context } = harness({ json: waiting() });
    const view = render(RunStatus, { props: { runId: RUN_ID, id: 'mine' }, context });
    await settle();
    expect(screen.getByRole('status').id).toBe('mine');
    await view.rerender({ runId: RUN_ID, labels: { activity: { 'waiting-for-model': 'Warte' } } });
    await settle();
    expect(screen.getByRole('status').textContent).toBe('Warte7.0 s');
  });

  it('puts its default styles into the head once however many statuses; none when unstyled', async () => {
    useFakeClock(at(10));
    const { context } = harness({ json: waiting() });
    const styled = render(Twice, { props: { runId: RUN_ID }, context });
    await settle();
    expect(screen.getAllByRole('status')).toHaveLength(2);
    expect(screen.getByTestId('second').className).toBe('mine');
    expect(statusStyles()).toHaveLength(1);
    expect(statusStyles()[0]?.textContent).toContain("[data-runlight='status']");
    styled.unmount();
    expect(statusStyles()).toHaveLength(0);
    render(Twice, {
      props: { runId: RUN_ID, unstyled: true },
      context: harness({ json: waiting() }).context,
    });
    await settle();
    expect(statusStyles()).toHaveLength(0);
  });
});
