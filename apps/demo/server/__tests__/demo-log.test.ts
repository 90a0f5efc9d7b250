import { afterEach, describe, expect, it, vi } from 'vitest';
import { demoLog, demoLogLine } from '../demo-runtime';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the demo server's log lines", () => {
  it('end with the message, not a literal undefined, when the entry has no error', () => {
    const args = demoLogLine({ level: 'info', runId: 'run-1', message: 'recovery: recovered' });
    expect(args).toEqual(['[demo] info run run-1: recovery: recovered']);
    expect(args.map(String).join(' ')).not.toMatch(/undefined/);
  });

  it('carry the error (its stack) when there is one', () => {
    const error = new Error('store down');
    expect(demoLogLine({ level: 'error', runId: 'run-1', message: 'failed', error })).toEqual([
      '[demo] error run run-1: failed',
      error,
    ]);
  });

  it('are what the server writes by default (`pnpm demo`): no trailing undefined', () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    demoLog({ level: 'info', runId: 'run-1', message: 'recovery: recovered' });
    expect(written.mock.calls).toEqual([['[demo] info run run-1: recovery: recovered']]);
  });
});
