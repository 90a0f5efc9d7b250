import { createRunlightClient } from '@runlight/client';
import {
  at,
  compactionOperation,
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  snapshot,
} from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import { createRunlightContext } from '../context/runlight-context.svelte.js';
import Timeline from './fixtures/Timeline.svelte';
import { settle, useFakeClock } from './harness.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('useRunHistory and useRunTimeline', () => {
  it("load the run's operations once and give the client's timeline rows and words", async () => {
    useFakeClock(at(20));
    const history = [
      operationEvent(2, compactionOperation('completed', { startedAt: at(1), endedAt: at(2) })),
      operationEvent(
        3,
        modelRequestOperation('completed', {
          startedAt: at(2),
          firstOutputAt: at(3),
          endedAt: at(5),
        }),
      ),
    ];
    const server = fakeRunServer({
      json: snapshot(3, { status: 'completed', owner: null, lastOperation: history[1]!.operation }),
    });
    const reads: string[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (String(input).includes('/operations')) {
        reads.push(String(input));
        return Response.json({ runId: RUN_ID, operations: history, nextAfter: null, revision: 3 });
      }
      return server.fetch(input, init);
    };
    const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
    render(Timeline, { props: { runId: RUN_ID }, context: createRunlightContext(client) });
    await settle();
    expect(screen.getByTestId('history').dataset.status).toBe('ready');
    expect(screen.getByTestId('history').textContent).toBe('2');
    expect(screen.getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Compaction',
      'Model request',
    ]);
    expect(reads).toHaveLength(1);
  });
});
