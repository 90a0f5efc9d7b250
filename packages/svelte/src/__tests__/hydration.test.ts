import { createRunlightClient, type LoadedSnapshot } from '@runlight/client';
import { at, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import Provided from './fixtures/Provided.svelte';
import { settle, useFakeClock } from './harness.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function browser(answer: ReturnType<typeof snapshot>) {
  const server = fakeRunServer({ json: answer });
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server.fetch,
    random: () => 0,
  });
  return { server, client };
}

describe('the browser after a server render', () => {
  it('shows the loaded snapshot at once and resumes the event stream without loading it again', async () => {
    useFakeClock(at(10));
    const served = snapshot(5, {
      lastOperation: modelRequestOperation('started', { startedAt: at(3) }),
    });
    const { server, client } = browser(served);
    const loaded: LoadedSnapshot = { snapshot: served, clockOffsetMs: null };
    render(Provided, { props: { client, loaded } });
    expect(screen.getByRole('status').getAttribute('data-activity')).toBe('waiting-for-model');
    await settle();
    expect(server.requests).toEqual({ snapshot: 0, events: 1 });
    expect(screen.getByRole('status').textContent).toBe('Waiting for the model7.0 s');
  });

  it('a finished run loaded ahead opens no connection at all', async () => {
    useFakeClock(at(10));
    const served = snapshot(5, { status: 'completed', owner: null, updatedAt: at(7.5) });
    const { server, client } = browser(served);
    render(Provided, { props: { client, loaded: { snapshot: served, clockOffsetMs: null } } });
    await settle();
    expect(server.requests).toEqual({ snapshot: 0, events: 0 });
    expect(screen.getByRole('status').textContent).toBe('Completed7.5 s');
  });
});
