import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { AccessRefusal, StreamReauthorization } from '../access/access-policy';
import { START_CURSOR } from '../streams/run-cursor';
import { RunEventStream } from '../streams/run-event-stream';
import { publishingDriver, ScriptedRun, SseReader } from './http-test-kit';

afterEach(() => {
  vi.useRealTimers();
});

/** Lets the stream's promise chains (a re-check, a flush) settle. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
};

type Step = 'delta' | 'tick' | 'revoke';

describe('re-authorization interleaved with live deltas (fast-check)', () => {
  it('the client gets every delta published before the refusing check, in order, then `unauthorized` and nothing more', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Step>('delta', 'delta', 'tick', 'revoke'), { maxLength: 30 }),
        async (steps) => {
          vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
          const hub = new RunEventHub();
          const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
          const run = await ScriptedRun.start({ store, hub }, 'run-p');
          let allowed = true;
          const reauthorize: StreamReauthorization = {
            everyMs: 1_000,
            check: async (): Promise<AccessRefusal | null> =>
              allowed ? null : { status: 403, code: 'forbidden' },
          };
          const stream = new RunEventStream({
            runId: 'run-p',
            store,
            source: hub,
            cursor: START_CURSOR,
            heartbeatMs: 2 ** 31 - 1,
            maxQueuedBytes: 8 * 1024 * 1024,
            onError: (error) => {
              throw error;
            },
            reauthorize,
          });
          stream.start(await store.getSnapshot('run-p'));
          await settle();

          let refused = false;
          /** Deltas published while the stream may still deliver them (before the refusal). */
          let deliverable = 0;
          for (const step of steps) {
            if (step === 'delta') {
              run.delta('x');
              if (!refused) deliverable++;
            } else {
              if (step === 'revoke') allowed = false;
              vi.advanceTimersByTime(1_000);
              await settle();
              if (!allowed) refused = true;
            }
          }
          await settle();
          if (!refused) stream.dispose();
          const reader = new SseReader(stream.readable);
          const messages = refused ? await reader.rest() : [];
          if (!refused) return;
          const deltas = messages.filter((message) => message.event === 'run-delta');
          expect(deltas.map((message) => JSON.parse(message.data).seq)).toEqual(
            Array.from({ length: deliverable }, (_, index) => index + 1),
          );
          const last = messages.at(-1)!;
          expect(last.event).toBe('unauthorized');
          expect(JSON.parse(last.data)).toEqual({
            type: 'unauthorized',
            runId: 'run-p',
            status: 403,
            code: 'forbidden',
          });
          expect(messages.filter((message) => message.event === 'unauthorized')).toHaveLength(1);
          vi.useRealTimers();
        },
      ),
      { numRuns: 60 },
    );
  });
});
