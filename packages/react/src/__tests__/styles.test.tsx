import { at, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runlightCss } from '../provider/runlight-css';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const styles = () => document.head.querySelectorAll('style');

// One test, in order: hoisted styles stay in the document once inserted.
describe('default styles', () => {
  it('are left out with `unstyled`, and otherwise inserted once however many components', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ json: snapshot(5) });
    const unstyled = render(
      <>
        <RunStatus runId={RUN_ID} unstyled />
        <OperationIndicator runId={RUN_ID} unstyled />
      </>,
      { wrapper },
    );
    await settle();
    expect(styles()).toHaveLength(0);
    expect(unstyled.container.querySelector('[data-runlight="status"]')).not.toBeNull();
    unstyled.unmount();

    render(
      <>
        <RunStatus runId={RUN_ID} />
        <RunStatus runId={RUN_ID} />
        <OperationIndicator runId={RUN_ID} />
      </>,
      { wrapper },
    );
    await settle();
    expect(styles()).toHaveLength(1);
    expect(styles()[0]?.textContent).toBe(runlightCss);
    expect(runlightCss).not.toMatch(/tailwind|bootstrap/i);
  });
});
