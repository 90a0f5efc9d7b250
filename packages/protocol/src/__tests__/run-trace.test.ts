import { describe, expect, it } from 'vitest';
import {
  ProtocolValidationError,
  PublicAgentRunSchema,
  parseRunTrace,
  safeParseAgentRun,
  safeParseRunEvent,
} from '../index';

const T0 = '2026-12-02T12:00:00.000Z';
const TRACE = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: 1,
};
const run = {
  id: 'run-1',
  status: 'queued',
  owner: null,
  fencingToken: 0,
  revision: 1,
  lastOperation: null,
  failure: null,
  leaseExpiresAt: null,
  createdAt: T0,
  updatedAt: T0,
};

describe('RunTraceSchema', () => {
  it('a run and its created event may carry the trace; the public form keeps it', () => {
    expect(safeParseAgentRun({ ...run, trace: TRACE })).toMatchObject({ success: true });
    const { fencingToken: _token, ...publicRun } = run;
    expect(PublicAgentRunSchema.parse({ ...publicRun, trace: TRACE }).trace).toEqual(TRACE);
    const created = {
      type: 'run-status',
      runId: 'run-1',
      revision: 1,
      at: T0,
      leaseExpiresAt: null,
      change: 'created',
      status: 'queued',
      owner: null,
      fencingToken: 0,
      failure: null,
      trace: TRACE,
    };
    expect(safeParseRunEvent(created)).toMatchObject({ success: true });
    // Runs and events stored before the field existed still parse.
    expect(safeParseAgentRun(run)).toMatchObject({ success: true });
  });

  it.each([
    ['upper-case hex', { ...TRACE, traceId: TRACE.traceId.toUpperCase() }, 'traceId'],
    ['a short span id', { ...TRACE, spanId: 'abc' }, 'spanId'],
    ['flags out of range', { ...TRACE, traceFlags: 256 }, 'traceFlags'],
    ['an extra field', { ...TRACE, tracestate: 'vendor=1' }, ''],
  ])('rejects %s with a typed error naming the field', (_name, trace, field) => {
    let error: unknown;
    try {
      parseRunTrace(trace);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ProtocolValidationError);
    expect(JSON.stringify((error as ProtocolValidationError).issues)).toContain(field);
    expect(safeParseAgentRun({ ...run, trace })).toMatchObject({ success: false });
  });
});
