import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render } from '@testing-library/react';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('ref on the components (a prop in React 19)', () => {
  it('RunStatus hands its live region to ref; with asChild, the child element', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    const region = createRef<HTMLDivElement>();
    const child = createRef<HTMLDivElement>();
    render(
      <>
        <RunStatus runId={RUN_ID} ref={region} />
        <RunStatus runId={RUN_ID} ref={child} asChild>
          <p className="mine" />
        </RunStatus>
      </>,
      { wrapper },
    );
    await settle();
    expect(region.current?.tagName).toBe('DIV');
    expect(region.current?.getAttribute('role')).toBe('status');
    expect(child.current?.tagName).toBe('P');
    expect(child.current?.getAttribute('data-runlight')).toBe('status');
  });

  it('OperationIndicator hands its span to ref', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    const indicator = createRef<HTMLSpanElement>();
    render(<OperationIndicator runId={RUN_ID} ref={indicator} />, { wrapper });
    await settle();
    expect(indicator.current?.tagName).toBe('SPAN');
    expect(indicator.current?.getAttribute('data-runlight')).toBe('indicator');
  });
});
