import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render, renderHook, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advance, harness, settle, useFakeClock } from '../../__tests__/harness';
import { RunStatus } from '../../status/run-status';
import { useElapsed } from '../use-elapsed';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const elapsedText = () =>
  screen.getByRole('status').querySelector('[data-runlight-part="elapsed"]')?.textContent;

describe('elapsed time', () => {
  it('keeps counting from startedAt across an unmount and a remount', async () => {
    useFakeClock(at(4));
    const { wrapper } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(1) }) }),
    });
    const first = render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(elapsedText()).toBe('3.0 s');
    await advance(2000);
    expect(elapsedText()).toBe('5.0 s');
    first.unmount();
    await advance(10_000);
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(elapsedText()).toBe('15 s');
  });

  it('keeps counting from startedAt across a reconnect and a snapshot reload (reset)', async () => {
    useFakeClock(at(4));
    const { wrapper, server } = harness({
      json: snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(1) }) }),
    });
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    expect(elapsedText()).toBe('3.0 s');
    // A drop, 8 s later a reconnect; then the server orders a reset and the snapshot is reloaded.
    server.end();
    await advance(8000);
    server.sendRaw('event: reset\ndata: {"type":"reset","runId":"run-1","reason":"gone"}\n\n');
    await settle();
    await advance(250);
    expect(server.requests.snapshot).toBe(2);
    expect(server.requests.events).toBeGreaterThanOrEqual(3);
    // 11.25 s since startedAt (T0+1) — not 0 s since the reconnect or the reload.
    expect(elapsedText()).toBe('11 s');
  });

  it('ticks while mounted and stops its clock after unmount', async () => {
    useFakeClock(at(2));
    const { result, unmount } = renderHook(() => useElapsed(at(1)));
    expect(result.current).toBe(1000);
    await advance(1500);
    expect(result.current).toBe(2500);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-renders only when the shown value changes (tenths, then seconds)', async () => {
    useFakeClock(at(20));
    let renders = 0;
    renderHook(() => {
      renders++;
      return useElapsed(at(1));
    });
    const before = renders;
    await advance(1000); // ten ticks of 100 ms, one new whole second
    expect(renders - before).toBe(1);
  });

  it('is corrected by a clock offset and never negative', async () => {
    useFakeClock(at(10));
    expect(renderHook(() => useElapsed(at(8), { clockOffsetMs: 3000 })).result.current).toBe(5000);
    expect(renderHook(() => useElapsed(at(12))).result.current).toBe(0);
    expect(renderHook(() => useElapsed(undefined)).result.current).toBe(null);
    expect(renderHook(() => useElapsed(at(1), { until: at(3.5) })).result.current).toBe(2500);
  });
});
