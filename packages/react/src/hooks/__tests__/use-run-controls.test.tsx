import { createRunlightClient, type RunControlResult } from '@runlight/client';
import { approvalMessage, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import {
  act,
  cleanup,
  fireEvent,
  render,
  renderHook,
  screen,
  waitFor,
} from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { RunlightProvider } from '../../provider/runlight-provider';
import { useRunControls } from '../use-run-controls';

afterEach(() => {
  cleanup();
});

const queued = snapshot(1, { status: 'queued', fencingToken: 0 });

/** A transport answering the two control routes: 202, or `refuse`'s answer for approvals. */
function setup(refuse: { status: number; code: string } | null = null) {
  const posts: { url: string; body: unknown; authorization: string | null }[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    // The run's own requests (the controls follow its facts): a queued run, no stream yet.
    if (init?.method !== 'POST') {
      return url.endsWith('/events') ? new Promise<Response>(() => {}) : Response.json(queued);
    }
    posts.push({
      url: url.replace('http://runlight.test/api', ''),
      body: JSON.parse(String(init?.body)),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    if (url.endsWith('/cancel')) {
      await held;
      return Response.json({ runId: 'run-1' }, { status: 202 });
    }
    if (refuse) {
      const error = { code: refuse.code, message: 'refused' };
      return Response.json({ error }, { status: refuse.status });
    }
    return Response.json({ runId: 'run-1' }, { status: 202 });
  };
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch,
    headers: { authorization: 'Bearer t' },
  });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {children}
    </RunlightProvider>
  );
  return { posts, wrapper, release };
}

describe('useRunControls', () => {
  it('cancels and answers approvals through the client, pending while the request is out', async () => {
    const { posts, wrapper, release } = setup();
    const { result } = renderHook(() => useRunControls('run-1'), { wrapper });
    expect(result.current.cancelling).toBe(false);
    await waitFor(() => expect(result.current.canCancel).toBe(true));
    let cancelled: Promise<RunControlResult> = Promise.resolve({ ok: true });
    act(() => {
      cancelled = result.current.cancel();
    });
    await waitFor(() => expect(result.current.cancelling).toBe(true));
    // A cancel on its way: the button it drives is disabled until the server answers.
    expect(result.current.canCancel).toBe(false);
    release();
    expect(await act(() => cancelled)).toEqual({ ok: true });
    await waitFor(() => expect(result.current.cancelling).toBe(false));
    await act(() =>
      result.current.answerApprovals([{ approvalId: 'a-1', approved: false, reason: 'No' }]),
    );
    expect(posts).toEqual([
      { url: '/runs/run-1/cancel', body: {}, authorization: 'Bearer t' },
      {
        url: '/runs/run-1/approvals',
        body: { approvals: [{ approvalId: 'a-1', approved: false, reason: 'No' }] },
        authorization: 'Bearer t',
      },
    ]);
    expect(result.current.error).toBeNull();
  });

  it('a refused answer is the typed error, with the server’s code', async () => {
    const { wrapper } = setup({ status: 409, code: 'not_awaiting_approval' });
    const { result } = renderHook(() => useRunControls('run-1'), { wrapper });
    let answered: RunControlResult | undefined;
    await act(async () => {
      answered = await result.current.answerApprovals([{ approvalId: 'a-1', approved: true }]);
    });
    expect(answered).toMatchObject({ ok: false, error: { code: 'not_awaiting_approval' } });
    await waitFor(() => expect(result.current.error).not.toBeNull());
    expect(result.current.error).toMatchObject({
      kind: 'http',
      status: 409,
      code: 'not_awaiting_approval',
    });
    expect(result.current.answering).toBe(false);
  });
});

/** The Stop button of the hook's JSDoc. */
function Stop() {
  const { cancel, canCancel, error } = useRunControls('run-1');
  return (
    <button
      type="button"
      disabled={!canCancel}
      data-code={error?.code ?? ''}
      onClick={() => void cancel()}
    >
      Stop
    </button>
  );
}

describe('useRunControls as its JSDoc shows it (issue 45)', () => {
  it('`void cancel()` after the run ended leaves no unhandled rejection; the result says run_ended', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      // The page still shows the run running; the server has already seen it end.
      const running = snapshot(3, { status: 'running' });
      const fetch: typeof globalThis.fetch = async (input, init) => {
        const url = String(input);
        if (init?.method === 'POST') {
          const error = { code: 'run_ended', message: 'The run ended.' };
          return Response.json({ error }, { status: 409 });
        }
        return url.endsWith('/events') ? new Promise<Response>(() => {}) : Response.json(running);
      };
      const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
      const wrapper = ({ children }: { children?: ReactNode }) => (
        <RunlightProvider client={client} queryClient={new QueryClient()}>
          {children}
        </RunlightProvider>
      );
      render(<Stop />, { wrapper });
      const button = screen.getByRole('button', { name: 'Stop' });
      await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
      fireEvent.click(button);
      await waitFor(() => expect(button.dataset.code).toBe('run_ended'));
      // Unhandled rejections are reported after the microtask queue drains: give it a turn.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(rejections).toEqual([]);

      const { result } = renderHook(() => useRunControls('run-1'), { wrapper });
      let settled: RunControlResult | undefined;
      await act(async () => {
        settled = await result.current.cancel();
      });
      expect(settled).toMatchObject({
        ok: false,
        error: { kind: 'http', status: 409, code: 'run_ended' },
      });
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});

describe('useRunControls follows the run', () => {
  it('lists the approvals an answer can settle now, and none while the answer is on its way', async () => {
    const awaiting = snapshot(
      3,
      { lastOperation: modelRequestOperation('completed') },
      { revision: 2, message: approvalMessage },
    );
    let answer: (() => void) | undefined;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (init?.method === 'POST') {
        return new Promise<Response>((resolve) => {
          answer = () => resolve(Response.json({ runId: 'run-1' }, { status: 202 }));
        });
      }
      return String(input).endsWith('/events')
        ? new Promise<Response>(() => {})
        : Response.json(awaiting);
    };
    const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
    const wrapper = ({ children }: { children?: ReactNode }) => (
      <RunlightProvider client={client} queryClient={new QueryClient()}>
        {children}
      </RunlightProvider>
    );
    const { result } = renderHook(() => useRunControls('run-1'), { wrapper });
    await waitFor(() => expect(result.current.approvals).toHaveLength(1));
    expect(result.current.approvals[0]).toMatchObject({
      approvalId: 'approval-1',
      toolName: 'runCommand',
      input: { cmd: 'ls' },
    });
    let answered: Promise<RunControlResult> = Promise.resolve({ ok: true });
    act(() => {
      answered = result.current.answerApprovals([{ approvalId: 'approval-1', approved: true }]);
    });
    await waitFor(() => expect(result.current.answering).toBe(true));
    expect(result.current.approvals).toEqual([]);
    answer!();
    expect(await act(() => answered)).toEqual({ ok: true });
  });
});
