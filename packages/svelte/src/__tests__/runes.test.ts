import { type Activity, createRunlightClient } from '@runlight/client';
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
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import { createRunlightContext } from '../context/runlight-context.svelte.js';
import { RunlightProviderMissingError } from '../index.js';
import Probe from './fixtures/Probe.svelte';
import { harness, settle, useFakeClock } from './harness.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('the runes', () => {
  it('one live connection however many components show a run; it closes after the last one goes', async () => {
    useFakeClock(at(10));
    const { server, context } = harness({
      json: snapshot(3, { lastOperation: modelRequestOperation('started') }),
    });
    const first = render(Probe, { props: { runId: RUN_ID }, context });
    const second = render(Probe, { props: { runId: RUN_ID }, context });
    await settle();
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
    expect(server.openStreams()).toBe(1);
    for (const probe of screen.getAllByTestId('probe')) {
      expect(probe.dataset.kind).toBe('waiting-for-model');
      expect(probe.dataset.connection).toBe('live');
    }
    first.unmount();
    await settle();
    expect(server.openStreams()).toBe(1);
    second.unmount();
    await settle();
    expect(server.openStreams()).toBe(0);
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
  });

  it('the activity follows durable events and keeps its value through text deltas; the message follows every delta', async () => {
    useFakeClock(at(10));
    const { server, context } = harness({
      json: snapshot(3, { lastOperation: modelRequestOperation('started', { startedAt: at(2) }) }),
    });
    const activities: Activity[] = [];
    const texts: string[] = [];
    render(Probe, {
      props: {
        runId: RUN_ID,
        onActivity: (activity: Activity) => activities.push(activity),
        onText: (text: string) => texts.push(text),
      },
      context,
    });
    await settle();
    server.send(
      operationEvent(
        4,
        modelRequestOperation('first-output', { startedAt: at(2), firstOutputAt: at(3) }),
      ),
    );
    server.send(checkpointEvent(5, textMessage('')));
    await settle();
    let expected = '';
    for (let seq = 1; seq <= 50; seq++) {
      expected += `w${seq} `;
      server.send(textDelta(5, seq, `w${seq} `));
      await settle(1);
    }
    expect(screen.getByTestId('probe').textContent).toBe(expected);
    server.send(statusEvent(6, 'completed'));
    await settle();
    expect(activities.map((activity) => activity.kind)).toEqual([
      'loading',
      'waiting-for-model',
      'streaming',
      'completed',
    ]);
    // The transcript saw the stream; the activity did not change with it.
    expect(texts.length).toBeGreaterThan(20);
  });

  it('a changed run id follows the new run and releases the old one', async () => {
    useFakeClock(at(10));
    const first = fakeRunServer({
      json: snapshot(3, { lastOperation: modelRequestOperation('started') }),
    });
    const second = fakeRunServer({
      json: snapshot(4, { id: 'run-2', lastOperation: modelRequestOperation('first-output') }),
    });
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: (input, init) =>
        (String(input).includes('/runs/run-2') ? second : first).fetch(input, init),
    });
    const view = render(Probe, {
      props: { runId: RUN_ID },
      context: createRunlightContext(client),
    });
    await settle();
    expect(screen.getByTestId('probe').dataset.kind).toBe('waiting-for-model');
    expect(first.openStreams()).toBe(1);
    await view.rerender({ runId: 'run-2' });
    await settle();
    expect(screen.getByTestId('probe').dataset.kind).toBe('streaming');
    expect(first.openStreams()).toBe(0);
    expect(second.openStreams()).toBe(1);
  });

  it('outside a Runlight context a rune throws RunlightProviderMissingError naming itself', () => {
    let thrown: unknown;
    try {
      render(Probe, { props: { runId: RUN_ID } });
    } catch (error) {
      thrown = error;
    }
    expect(RunlightProviderMissingError.isInstance(thrown)).toBe(true);
    expect((thrown as RunlightProviderMissingError).hook).toBe('useRunActivity');
  });
});
