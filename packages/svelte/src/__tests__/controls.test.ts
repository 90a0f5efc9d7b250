import { createRunlightClient } from '@runlight/client';
import { RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunlightContext } from '../context/runlight-context.svelte.js';
import Controls from './fixtures/Controls.svelte';

afterEach(() => cleanup());

/** A transport whose control answers the test releases, recording what was posted. */
function controlServer() {
  const posted: string[] = [];
  let release: (response: Response) => void = () => {};
  const fetch: typeof globalThis.fetch = async (input, init) => {
    // The run's own requests (`canCancel` follows its facts): running, no stream yet.
    if (init?.method !== 'POST') {
      if (String(input).endsWith('/events')) return new Promise<Response>(() => {});
      return Response.json(snapshot(3));
    }
    posted.push(`${init?.method} ${new URL(String(input)).pathname} ${init?.body ?? ''}`);
    return new Promise<Response>((resolve) => {
      release = resolve;
    });
  };
  return { posted, fetch, answer: (response: Response) => release(response) };
}

const tick = async () => {
  for (let round = 0; round < 5; round++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
  flushSync();
};

describe('useRunControls', () => {
  it('cancels with the client, says so while the request is on its way, and keeps a refusal as a typed error', async () => {
    const server = controlServer();
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    render(Controls, { props: { runId: RUN_ID }, context: createRunlightContext(client) });
    const cancel = screen.getByTestId('cancel');
    await tick();
    expect(cancel.dataset.canCancel).toBe('true');
    await fireEvent.click(cancel);
    await tick();
    expect(server.posted).toEqual([`POST /api/runs/${RUN_ID}/cancel {}`]);
    expect(cancel.dataset.cancelling).toBe('true');
    expect(cancel.dataset.canCancel).toBe('false');
    server.answer(new Response(null, { status: 202 }));
    await tick();
    expect(cancel.dataset.cancelling).toBe('false');
    expect(cancel.dataset.error).toBe('');

    await fireEvent.click(cancel);
    await tick();
    server.answer(
      Response.json({ error: { code: 'run_ended', message: 'The run ended.' } }, { status: 409 }),
    );
    await tick();
    expect(cancel.dataset.cancelling).toBe('false');
    expect(cancel.dataset.error).toBe('http');
    expect(cancel.dataset.code).toBe('run_ended');
  });

  it('answers approvals with the client and says so while they are on their way', async () => {
    const server = controlServer();
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
    });
    render(Controls, { props: { runId: RUN_ID }, context: createRunlightContext(client) });
    const approve = screen.getByTestId('approve');
    await fireEvent.click(approve);
    await tick();
    expect(server.posted[0]).toMatch(new RegExp(`^POST /api/runs/${RUN_ID}/approvals .*"a-1"`));
    expect(approve.dataset.answering).toBe('true');
    server.answer(new Response(null, { status: 202 }));
    await tick();
    expect(approve.dataset.answering).toBe('false');
  });
});
