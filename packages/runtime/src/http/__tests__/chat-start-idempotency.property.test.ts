import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { withLatency } from '../../testing/with-latency';
import { createChatStartRoute } from '../chat/create-chat-start-route';

describe('createChatStartRoute under retried and concurrent POSTs', () => {
  it('starts exactly one run per send, whichever of two instances each copy reaches and in any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each send is POSTed 1–4 times; each copy goes to instance 0 or 1.
        fc.array(fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 1_000 }),
        async (sends, seed) => {
          const store = createAgentRuntimeStore(
            withLatency(createMemoryDriver(), { minMs: 0, maxMs: 3, seed }),
          );
          let modelCalls = 0;
          const instances = ['a', 'b'].map((owner) => {
            const runtime = createAgentRuntime({ store, owner, onLog: () => {} });
            return createChatStartRoute({
              runtime,
              store,
              authorize: 'public',
              run: () => {
                const model = scriptedModel([{ text: 'Hi.' }]);
                const doStream = model.doStream.bind(model);
                model.doStream = (options) => {
                  modelCalls++;
                  return doStream(options);
                };
                return { model };
              },
            });
          });
          const post = (instance: number, requestId: string) =>
            instances[instance]!(
              new Request('http://test/api/chat', {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({
                  chatId: 'chat-1',
                  trigger: 'submit-message',
                  requestId,
                  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
                }),
              }),
            );
          const answers = await Promise.all(
            sends.flatMap((copies, send) =>
              copies.map((instance) => post(instance, `req-${send}`)),
            ),
          );
          const ids = await Promise.all(answers.map(async (answer) => (await answer.json()).runId));
          for (const answer of answers) expect([200, 201]).toContain(answer.status);
          // Every copy of a send names the same run; different sends name different runs.
          let index = 0;
          const perSend = sends.map((copies) => {
            const named = new Set(ids.slice(index, index + copies.length));
            index += copies.length;
            return named;
          });
          for (const named of perSend) expect(named.size).toBe(1);
          const runIds = perSend.map((named) => [...named][0] as string);
          expect(new Set(runIds).size).toBe(sends.length);
          for (const runId of runIds) {
            await expect.poll(async () => (await store.getRun(runId)).status).toBe('completed');
          }
          expect(modelCalls).toBe(sends.length);
        },
      ),
      { numRuns: 25 },
    );
  });
});
