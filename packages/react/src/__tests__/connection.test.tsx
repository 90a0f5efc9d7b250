import { at, modelRequestOperation, operationEvent, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRun } from '../hooks/use-run';
import { useRunConnection } from '../hooks/use-run-connection';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { advance, harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Transcript() {
  const { message } = useRun(RUN_ID);
  return <p>{message?.parts.length ?? 0}</p>;
}

function Connection() {
  const { state } = useRunConnection(RUN_ID);
  return <span data-testid="connection">{state}</span>;
}

describe('live connection', () => {
  it('opens exactly one events request for StrictMode and several components on one run', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(
      <StrictMode>
        <RunStatus runId={RUN_ID} />
        <OperationIndicator runId={RUN_ID} />
        <Transcript />
        <Connection />
      </StrictMode>,
      { wrapper },
    );
    await settle();
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
    expect(server.openStreams()).toBe(1);
    expect(screen.getByTestId('connection').textContent).toBe('live');
    // The one stream feeds every component.
    server.send(operationEvent(6, modelRequestOperation('first-output')));
    await settle();
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('streaming');
    expect(screen.getByRole('img').getAttribute('data-activity')).toBe('streaming');
  });

  it('keeps the one connection when a component remounts, and closes it after the last one leaves', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    const view = render(<RunStatus key="a" runId={RUN_ID} />, { wrapper });
    await settle();
    view.rerender(<RunStatus key="b" runId={RUN_ID} />);
    await settle();
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
    expect(server.openStreams()).toBe(1);
    view.unmount();
    await settle();
    expect(server.openStreams()).toBe(0);
  });

  it('a second provider over the same client shares the connection', async () => {
    useFakeClock(at(10));
    const { wrapper: Wrapper, server } = harness({ json: snapshot(5) });
    render(
      <>
        <Wrapper>
          <RunStatus runId={RUN_ID} />
        </Wrapper>
        <Wrapper>
          <Transcript />
        </Wrapper>
      </>,
    );
    await settle();
    expect(server.requests.events).toBe(1);
  });

  it('reconnects after the server drops the stream, resuming without a new snapshot', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
    });
    render(<Connection />, { wrapper });
    await settle();
    server.end();
    await settle();
    expect(screen.getByTestId('connection').textContent).toBe('reconnecting');
    await advance(250);
    expect(server.requests).toEqual({ snapshot: 1, events: 2 });
    expect(screen.getByTestId('connection').textContent).toBe('live');
  });
});
