import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunOperation, UIMessage } from '@runlight/protocol';

/*
 * The fixtures the conformance suites drive a driver and a bus with. They live in the kit (not
 * in the workspace's private `@runlight/test-utils`, which holds the same shapes for the
 * workspace's own tests) so that a published `@runlight/runtime/test-kit` needs nothing more.
 */

const T0 = '2026-12-02T12:00:00.000Z';
const T1 = '2026-12-02T12:00:01.000Z';
const T2 = '2026-12-02T12:00:02.000Z';

/**
 * A fixed wall clock that tests move by hand.
 *
 * @example
 * const clock = manualClock(); clock.advance(1_000); clock.iso(); // '2026-12-02T12:00:01.000Z'
 */
export function manualClock(start = T0) {
  let current = Date.parse(start);
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    iso: () => new Date(current).toISOString(),
    /** The ISO time `ms` after now. */
    plus: (ms: number) => new Date(current + ms).toISOString(),
  };
}

/**
 * A model-request operation of `step` in `phase`, with the timestamps its phase requires.
 *
 * @example
 * modelRequest(0, 'first-output'); // { id: 'model-request:step-0', phase: 'first-output', … }
 */
export function modelRequest(
  step: number,
  phase: RunOperation['phase'] = 'started',
  id = `model-request:step-${step}`,
): RunOperation {
  const operation: RunOperation = { id, kind: 'model-request', phase, step, startedAt: T0 };
  if (phase === 'first-output') operation.firstOutputAt = T1;
  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    operation.endedAt = T2;
  }
  return operation;
}

/**
 * An assistant message with one text part.
 *
 * @example
 * assistantMessage('Hello'); // { id: 'message-1', role: 'assistant', parts: [{ type: 'text', … }] }
 */
export function assistantMessage(text: string, id = 'message-1'): UIMessage {
  return { id, role: 'assistant', parts: [{ type: 'text', text, state: 'done' }] };
}

/**
 * Serves `listener` on 127.0.0.1 at a free port; `close` ends every open connection (event
 * streams included), then the server.
 *
 * @example
 * const { origin, close } = await listenOnLoopback(toNodeListener(router));
 */
export async function listenOnLoopback(
  listener: RequestListener,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
