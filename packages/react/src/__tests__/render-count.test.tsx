import { type RunState, selectMessage } from '@runlight/client';
import {
  at,
  checkpointEvent,
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  snapshot,
  statusEvent,
  textDelta,
  textMessage,
} from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRun } from '../hooks/use-run';
import { useRunActivity } from '../hooks/use-run-activity';
import { RunStatus } from '../status/run-status';
import { harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Transcript({ onRender }: { onRender: () => void }) {
  onRender();
  const { message } = useRun(RUN_ID);
  const text = message?.parts.map((part) => ('text' in part ? part.text : '')).join('') ?? '';
  return <p data-testid="transcript">{text}</p>;
}

function ActivityProbe({ seen }: { seen: string[] }) {
  const activity = useRunActivity(RUN_ID);
  if (seen.at(-1) !== activity.kind) seen.push(activity.kind);
  return null;
}

const selectPartCount = (state: RunState) => selectMessage(state)?.parts.length ?? 0;

function PartCount({ renders }: { renders: { count: number } }) {
  renders.count++;
  const count = useRun(RUN_ID, { select: selectPartCount });
  return <span data-testid="count">{count}</span>;
}

describe('render counts', () => {
  it('streams 1,000 text deltas: RunStatus renders once per activity change (+1), the transcript renders the text', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(3, { lastOperation: modelRequestOperation('started', { startedAt: at(2) }) }),
    });
    let statusCommits = 0;
    let transcriptRenders = 0;
    const kinds: string[] = [];
    render(
      <>
        <Profiler id="status" onRender={() => statusCommits++}>
          <RunStatus runId={RUN_ID} />
        </Profiler>
        <Transcript onRender={() => transcriptRenders++} />
        <ActivityProbe seen={kinds} />
      </>,
      { wrapper },
    );
    await settle();
    server.send(
      operationEvent(
        4,
        modelRequestOperation('first-output', { startedAt: at(2), firstOutputAt: at(3) }),
      ),
    );
    await settle(1);
    let expected = '';
    // 500 deltas on no checkpoint, a checkpoint holding them, 500 more on top of it.
    for (let seq = 1; seq <= 500; seq++) {
      const delta = `w${seq} `;
      expected += delta;
      server.send(textDelta(0, seq, delta));
      await settle(1);
    }
    server.send(checkpointEvent(5, textMessage(expected)));
    await settle(1);
    for (let seq = 1; seq <= 500; seq++) {
      const delta = `x${seq} `;
      expected += delta;
      server.send(textDelta(5, seq, delta));
      await settle(1);
    }
    server.send(
      operationEvent(
        6,
        modelRequestOperation('completed', {
          startedAt: at(2),
          firstOutputAt: at(3),
          endedAt: at(9),
        }),
      ),
    );
    server.send(
      checkpointEvent(7, {
        ...textMessage(expected),
        parts: [{ type: 'text', text: expected, state: 'done' }],
      }),
    );
    await settle(1);
    server.send(statusEvent(8, 'completed'));
    await settle();

    expect(screen.getByTestId('transcript').textContent).toBe(expected);
    expect(kinds).toEqual(['loading', 'waiting-for-model', 'streaming', 'working', 'completed']);
    const activityChanges = kinds.length - 1;
    expect(statusCommits).toBeGreaterThan(0);
    expect(statusCommits).toBeLessThanOrEqual(activityChanges + 1);
    // The transcript did see the stream: far more renders than activity changes.
    expect(transcriptRenders).toBeGreaterThan(100);
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('completed');
  });

  it('a selector re-renders only when its slice changes', async () => {
    useFakeClock(at(10));
    const { wrapper, server } = harness({
      json: snapshot(3, { lastOperation: modelRequestOperation('first-output') }),
    });
    const renders = { count: 0 };
    render(<PartCount renders={renders} />, { wrapper });
    await settle();
    const before = renders.count;
    for (let seq = 1; seq <= 20; seq++) {
      server.send(textDelta(0, seq, 'a'));
      await settle(1);
    }
    expect(screen.getByTestId('count').textContent).toBe('1');
    // One render for 0 → 1 part; the other 19 deltas leave the count alone.
    expect(renders.count - before).toBe(1);
  });
});

/** The `@example` of `useRun`: a selector written inline, a new function on every render. */
function InlinePartCount({ tick }: { tick: number }) {
  const count = useRun(RUN_ID, { select: (state) => selectMessage(state)?.parts.length ?? 0 });
  return (
    <span data-testid="inline-count" data-tick={tick}>
      {count}
    </span>
  );
}

describe('subscriptions', () => {
  it('an inline selector across 10 re-renders subscribes to the run store once', async () => {
    useFakeClock(at(10));
    const { wrapper, client } = harness({
      json: snapshot(3, {}, checkpointEvent(3, textMessage('Hi')).checkpoint),
    });
    const subscribe = vi.spyOn(client.run(RUN_ID), 'subscribe');
    const { rerender } = render(<InlinePartCount tick={0} />, { wrapper });
    await settle();
    const afterMount = subscribe.mock.calls.length;
    for (let tick = 1; tick <= 10; tick++) {
      rerender(<InlinePartCount tick={tick} />);
      await settle(1);
    }
    expect(screen.getByTestId('inline-count').dataset.tick).toBe('10');
    expect(screen.getByTestId('inline-count').textContent).toBe('1');
    expect(afterMount).toBe(1);
    expect(subscribe).toHaveBeenCalledTimes(1);
  });
});
