import { createRunlightClient } from '@runlight/client';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { RunlightProvider } from '../../provider/runlight-provider';
import { useRunControls } from '../use-run-controls';

afterEach(() => {
  cleanup();
});

/** A transport answering the two control routes: 202, or `refuse`'s answer for approvals. */
function setup(refuse: { status: number; code: string } | null = null) {
  const posts: { url: string; body: unknown; authorization: string | null }[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
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
    let cancelled: Promise<void> = Promise.resolve();
    act(() => {
      cancelled = result.current.cancel();
    });
    await waitFor(() => expect(result.current.cancelling).toBe(true));
    release();
    await act(() => cancelled);
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
    await act(async () => {
      await result.current.answerApprovals([{ approvalId: 'a-1', approved: true }]).catch(() => {});
    });
    await waitFor(() => expect(result.current.error).not.toBeNull());
    expect(result.current.error).toMatchObject({
      kind: 'http',
      status: 409,
      code: 'not_awaiting_approval',
    });
    expect(result.current.answering).toBe(false);
  });
});
