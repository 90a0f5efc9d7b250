import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultLog } from '../agent-runtime-types';
import { logArguments } from '../log-arguments';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the default server log', () => {
  it('writes an entry without an error as one line, with no trailing undefined', () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    defaultLog({ level: 'info', runId: 'run-1', message: 'taken over by worker-b' });
    expect(written).toHaveBeenCalledTimes(1);
    expect(written.mock.calls[0]).toEqual(['[runlight] info run run-1: taken over by worker-b']);
  });

  it('writes an entry with an error as the line and the error (its stack)', () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    const error = new Error('store down');
    defaultLog({ level: 'error', runId: 'run-1', message: 'checkpoint failed', error });
    expect(written.mock.calls[0]).toEqual(['[runlight] error run run-1: checkpoint failed', error]);
  });

  it('logArguments leaves out only an absent error (a falsy one is still shown)', () => {
    expect(logArguments('line', undefined)).toEqual(['line']);
    expect(logArguments('line', null)).toEqual(['line', null]);
    expect(logArguments('line', 0)).toEqual(['line', 0]);
  });
});
