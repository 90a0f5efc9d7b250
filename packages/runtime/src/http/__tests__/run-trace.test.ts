import { ProtocolValidationError } from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunServer, serveRunHandlers } from '../../test-kit/index';

const TRACE = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: 1,
};
let server: RunServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('the run’s trace over HTTP', () => {
  it.each([false, true])(
    'the snapshot carries run.trace (exposeInternals %s)',
    async (exposeInternals) => {
      server = await serveRunHandlers({ handlers: { exposeInternals } });
      await server.store.createRun({ runId: 'run-traced', trace: TRACE });
      const body = await (await fetch(`${server.baseUrl}/runs/run-traced`)).json();
      expect(body.run.trace).toEqual(TRACE);
      expect('fencingToken' in body.run).toBe(exposeInternals);
    },
  );

  it('a malformed trace is refused at creation with a typed error, and nothing is stored', async () => {
    server = await serveRunHandlers();
    await expect(
      server.store.createRun({ runId: 'run-bad', trace: { ...TRACE, spanId: 'nope' } }),
    ).rejects.toBeInstanceOf(ProtocolValidationError);
    expect((await fetch(`${server.baseUrl}/runs/run-bad`)).status).toBe(404);
  });
});
