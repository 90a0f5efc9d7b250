import {
  at,
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  snapshot,
  textDelta,
} from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { Component, type ReactNode, Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRun } from '../hooks/use-run';
import { useSuspenseRun } from '../hooks/use-suspense-run';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { advance, harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function Transcript() {
  const { message } = useRun(RUN_ID);
  const part = message?.parts[0];
  return <p data-testid="transcript">{part && 'text' in part ? part.text : ''}</p>;
}

function SuspenseTranscript() {
  const { message } = useSuspenseRun(RUN_ID);
  return <p>{message?.id}</p>;
}

class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error === null ? this.props.children : <p role="alert">boundary</p>;
  }
}

const badSnapshots: Array<[string, { json: unknown } | { text: string }, string]> = [
  [
    'an unknown run status',
    { json: { ...snapshot(5), run: { ...snapshot(5).run, status: 'exploded' } } },
    'invalid-snapshot',
  ],
  [
    'a started operation with an end time',
    {
      json: snapshot(5, { lastOperation: { ...modelRequestOperation('started'), endedAt: at(3) } }),
    },
    'invalid-snapshot',
  ],
  ['a truncated body', { text: '{"run": {"id": "run-1", "sta' }, 'malformed-json'],
  [
    'another run',
    { json: { ...snapshot(5), run: { ...snapshot(5).run, id: 'run-2' } } },
    'run-mismatch',
  ],
];

describe('bad data from the server', () => {
  it.each(badSnapshots)(
    'a snapshot with %s shows an error state, not a crash',
    async (_name, answer, kind) => {
      useFakeClock(at(10));
      const { wrapper } = harness(answer);
      render(
        <Boundary>
          <RunStatus runId={RUN_ID} />
          <OperationIndicator runId={RUN_ID} />
          <Transcript />
        </Boundary>,
        { wrapper },
      );
      await settle();
      expect(screen.queryByRole('alert')).toBeNull();
      const status = screen.getByRole('status');
      expect(status.getAttribute('data-error')).toBe(kind);
      expect(status.textContent).toBe('The run status could not be loaded');
      expect(status.getAttribute('data-load-failure')).toBe('unavailable');
      expect(screen.getByRole('img', { name: 'The run status could not be loaded' })).toBeTruthy();
      expect(screen.getByTestId('transcript').textContent).toBe('');
    },
  );

  it('a refused snapshot request (404) shows the error state and is not asked again after the just-created window', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({ status: 404 });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(screen.getByRole('status').getAttribute('data-error')).toBe('run-not-found');
    // Inside the window: its own labelled state, still waiting, not a failure.
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('not-created');
    expect(screen.getByRole('status').textContent).toBe('Waiting for the run to start');
    // The store retries a 404 for `notFoundRetryMs` (30 s by default: a run just created may
    // not be visible yet), with backoff; then it stops for good.
    await advance(60_000); // long past every retry delay of the query and the store
    const asked = server.requests.snapshot;
    expect(asked).toBeLessThanOrEqual(12);
    await advance(60_000);
    expect(server.requests).toEqual({ snapshot: asked, events: 0 });
    // Past the window it says what the server said — not that something failed to load.
    expect(screen.getByRole('status').textContent).toBe('This run does not exist');
    expect(screen.getByRole('status').getAttribute('data-load-failure')).toBe('not-found');
  });

  it.each([401, 403])(
    'a snapshot request refused with %i says access was refused, not that it could not be loaded',
    async (status) => {
      useFakeClock(at(10));
      const { wrapper } = harness({ status });
      render(
        <>
          <RunStatus runId={RUN_ID} />
          <OperationIndicator runId={RUN_ID} />
        </>,
        { wrapper },
      );
      await settle();
      const region = screen.getByRole('status');
      expect(region.getAttribute('data-error')).toBe('unauthorized');
      expect(region.getAttribute('data-load-failure')).toBe('access-refused');
      expect(region.textContent).toBe('Access to this run was refused');
      expect(screen.getByRole('img', { name: 'Access to this run was refused' })).toBeTruthy();
    },
  );

  it('a refused request takes its words from the labels (i18n)', async () => {
    useFakeClock(at(10));
    const { wrapper } = harness({ status: 401 });
    render(<RunStatus runId={RUN_ID} labels={{ accessRefused: 'Zugriff verweigert' }} />, {
      wrapper,
    });
    await settle();
    expect(screen.getByRole('status').textContent).toBe('Zugriff verweigert');
  });

  it('bad events mid-stream keep the last good state on screen and later good events apply', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('first-output') }),
    });
    render(
      <Boundary>
        <RunStatus runId={RUN_ID} />
        <Transcript />
      </Boundary>,
      { wrapper },
    );
    await settle();
    server.send(textDelta(0, 1, 'Hello'));
    await settle();
    server.sendRaw('event: run-delta\ndata: {"type":"run-delta","runId":"run-1","baseRe\n\n');
    server.sendRaw(
      `event: run-operation\nid: 6\ndata: ${JSON.stringify({ ...operationEvent(6, modelRequestOperation('first-output')), operation: { kind: 'model-request' } })}\n\n`,
    );
    server.sendRaw('event: surprise\ndata: {}\n\n');
    await settle();
    expect(screen.queryByRole('alert')).toBeNull();
    const status = screen.getByRole('status');
    expect(status.getAttribute('data-activity')).toBe('streaming');
    expect(status.getAttribute('data-error')).not.toBeNull();
    expect(screen.getByTestId('transcript').textContent).toBe('Hello');
    server.send(textDelta(0, 2, ', world'));
    server.send(operationEvent(6, modelRequestOperation('completed')));
    await settle();
    expect(screen.getByTestId('transcript').textContent).toBe('Hello, world');
    expect(status.getAttribute('data-activity')).toBe('working');
  });

  it('useSuspenseRun hands a bad snapshot to the nearest error boundary, leaving the rest of the tree', async () => {
    useFakeClock(at(10));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { wrapper } = harness({ json: { ...snapshot(5), revision: 'five' } });
    render(
      <>
        <p data-testid="sibling">still here</p>
        <Boundary>
          <Suspense fallback={<p>loading</p>}>
            <SuspenseTranscript />
          </Suspense>
        </Boundary>
      </>,
      { wrapper },
    );
    await settle();
    expect(screen.getByRole('alert').textContent).toBe('boundary');
    expect(screen.getByTestId('sibling').textContent).toBe('still here');
  });
});
