import { at, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runlightCss, runlightStatusCss, runlightTimelineCss } from '../provider/runlight-css';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { RunTimeline } from '../timeline/run-timeline';
import { harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const styles = () => document.head.querySelectorAll('style');

// One test, in order: hoisted styles stay in the document once inserted.
describe('default styles', () => {
  it('are left out with `unstyled`, and otherwise inserted once however many components, the timeline’s only with a timeline', async () => {
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
    // A page of statuses carries the status styles only, none of the timeline's.
    expect(styles()).toHaveLength(1);
    expect(styles()[0]?.textContent).toBe(runlightStatusCss);
    expect(runlightStatusCss).not.toContain("'timeline'");

    render(
      <>
        <RunTimeline runId={RUN_ID} />
        <RunTimeline runId={RUN_ID} />
      </>,
      { wrapper },
    );
    await settle();
    expect(styles()).toHaveLength(2);
    expect(styles()[1]?.textContent).toBe(runlightTimelineCss);
    expect([...styles()].map((style) => style.textContent).join('\n')).toBe(runlightCss);
    expect(runlightCss).not.toMatch(/tailwind|bootstrap/i);
  });
});
