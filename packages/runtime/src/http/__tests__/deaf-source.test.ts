import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  RunEventHub,
  type RunEventSource,
  type RunEventSourceHealth,
} from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { publishingDriver, ScriptedRun } from './http-test-kit';

/** The hub behind a source whose health the test sets (a bus that lost its LISTEN connection). */
function sourceWithHealth(hub: RunEventHub) {
  let health: RunEventSourceHealth = 'live';
  const source: RunEventSource = {
    subscribe: (runId, listener) => hub.subscribe(runId, listener),
    liveDeltas: (runId) => hub.liveDeltas(runId),
    health: () => health,
  };
  return {
    source,
    set(next: RunEventSourceHealth) {
      health = next;
    },
  };
}

/** Every chunk of `body`, as text, as it arrives. */
function record(body: ReadableStream<Uint8Array>) {
  const chunks: string[] = [];
  const reader = body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      chunks.push(decoder.decode(r.value));
    }
  })().catch(() => {});
  return { chunks, cancel: () => reader.cancel() };
}

async function setUp() {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
  const run = await ScriptedRun.start({ store, hub }, 'run-1');
  return { hub, store, run, ...sourceWithHealth(hub) };
}

const pings = (chunks: readonly string[]) => chunks.filter((chunk) => chunk === ': ping\n\n');

describe('a deaf event source (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gets no ": ping" on a run stream while deaf, and pings again once it hears', async () => {
    vi.useFakeTimers();
    const { store, run, source, set } = await setUp();
    const handlers = createRunHandlers({
      store,
      runtime: source,
      authorize: 'public',
      heartbeatMs: 1_000,
    });
    const response = await handlers.events(
      new Request('http://test/runs/run-1/events?after=2'),
      'run-1',
    );
    const { chunks, cancel } = record(response.body!);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pings(chunks)).toHaveLength(1);

    set('deaf');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pings(chunks)).toHaveLength(1); // the client's stall timer runs out
    run.delta('x'); // what still arrives is still sent
    await vi.advanceTimersByTimeAsync(0);
    expect(chunks.at(-1)).toMatch(/^event: run-delta\n/);

    set('live');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(pings(chunks)).toHaveLength(2);
    await cancel();
  });

  it('gets no ": ping" on a multiplexed stream while deaf', async () => {
    vi.useFakeTimers();
    const { store, source, set } = await setUp();
    const multiplex = createMultiplexHandlers({
      store,
      runtime: source,
      authorize: 'public',
      heartbeatMs: 1_000,
    });
    const response = await multiplex.events(new Request('http://test/run-events?run=run-1@2'));
    const { chunks, cancel } = record(response.body!);
    await vi.advanceTimersByTimeAsync(2_000); // the first interval wrote run-open
    expect(pings(chunks)).toHaveLength(1);

    set('deaf');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pings(chunks)).toHaveLength(1);

    set('live');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pings(chunks)).toHaveLength(2);
    await cancel();
  });
});
