import type { BaseEvent, Message } from '@ag-ui/core';
import {
  type AgentRuntime,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunRecovery,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { listenOnLoopback } from '@runlight/test-utils';
import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunlightAgent } from '../client/runlight-agent';
import { createAgUiRoute } from '../server/create-ag-ui-route';
import { checkStandard } from './ag-ui-server';

const pay = tool({
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => ({ paid: amount }),
});

const options = {
  tools: { pay },
  toolApproval: { pay: 'user-approval' as const },
  stopWhen: isStepCount(5),
};

/** Holds worker A's model stream before its `at`-th part, until the takeover is under way. */
function heldModel(at: number, reached: () => void, released: Promise<void>) {
  const model = scriptedModel([
    {
      reasoning: 'Paying needs an approval first.',
      text: 'Worker A starts the answer and will not finish it.',
      toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
    },
  ]);
  const doStream = model.doStream.bind(model);
  let count = 0;
  model.doStream = async (call) => {
    const result = await doStream(call);
    const stream = result.stream.pipeThrough(
      new TransformStream({
        async transform(part, controller) {
          if (count++ === at) {
            reached();
            await released;
          }
          controller.enqueue(part);
        },
      }),
    );
    return { ...result, stream };
  };
  return model;
}

const withoutMetadata = (messages: readonly Message[]) =>
  messages.map(({ ...message }) => {
    delete (message as { metadata?: unknown }).metadata;
    return message;
  });

function recorder(agent: RunlightAgent) {
  const streams: BaseEvent[][] & { failures: string[] } = Object.assign([], { failures: [] });
  agent.subscribe({
    onRunFailed: ({ error }) => {
      streams.failures.push(error.message);
    },
    onRunInitialized: () => {
      streams.push([]);
    },
    onEvent: ({ event }) => {
      streams.at(-1)?.push(event);
    },
  });
  return streams;
}

describe('reconnect after a takeover', () => {
  it('worker A stops mid-run, worker B takes the run over: a page that watched and a page reloaded after the takeover hold the same messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 30 }), async (at) => {
        const store = createAgentRuntimeStore(createMemoryDriver());
        const hub = new RunEventHub();
        const a: AgentRuntime = createAgentRuntime({ store, events: hub, owner: 'worker-a' });
        const b: AgentRuntime = createAgentRuntime({ store, events: hub, owner: 'worker-b' });
        let reach = () => {};
        const reached = new Promise<void>((resolve) => {
          reach = resolve;
        });
        let release = () => {};
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        const route = createAgUiRoute({
          runtime: a,
          store,
          authorize: 'public',
          start: () => ({ ...options, model: heldModel(at, reach, released) }),
        });
        const recovery = createRunRecovery({
          store,
          runtime: b,
          resolveRun: () => ({
            ...options,
            messages: [{ role: 'user', content: 'Pay 5' }],
            model: scriptedModel([
              {
                text: 'Worker B answers: paying 5.',
                toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
              },
              { text: 'Paid.' },
            ]),
          }),
        });
        const server = await listenOnLoopback(toNodeListener(route));
        const url = server.origin;
        try {
          const watcher = new RunlightAgent({ url, threadId: 'thread-t' });
          watcher.addMessage({ id: 'user-1', role: 'user', content: 'Pay 5' });
          const watched = recorder(watcher);
          const first = watcher.runAgent();
          const ended = await Promise.race([reached.then(() => false), first.then(() => true)]);
          if (!ended) {
            // Worker A goes away mid-run (its lease handed off at once); worker B takes over.
            const closing = a.close({ timeoutMs: 0 });
            release();
            await closing;
            const outcomes = await recovery.tick();
            expect(outcomes.map((outcome) => outcome.result)).toContain('recovered');
          }
          await first;
          // A page reloaded after the takeover.
          const reloaded = new RunlightAgent({ url, runId: watcher.runId! });
          const reloadedStreams = recorder(reloaded);
          await reloaded.connectAgent();
          expect(watched.failures).toEqual([]);
          expect(reloadedStreams.failures).toEqual([]);
          expect(withoutMetadata(reloaded.messages)).toEqual(withoutMetadata(watcher.messages));
          for (const stream of [...watched, ...reloadedStreams]) await checkStandard(stream);
        } finally {
          release();
          await server.close();
          await a.close({ timeoutMs: 0 });
          await b.close({ timeoutMs: 0 });
        }
      }),
      // Found by this property: 23, the takeover lands mid-text and worker B re-opens the text
      // part (it must be re-opened on the wire before it grows); 24, worker B repeats a tool
      // call id (the snapshot must hold it once, as AG-UI's reducer does).
      { numRuns: 12, examples: [[23], [24]] },
    );
  }, 300_000);
});
