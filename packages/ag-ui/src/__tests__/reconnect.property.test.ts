import type { BaseEvent, Message } from '@ag-ui/core';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunlightAgent } from '../client/runlight-agent';
import { type AgUiServer, checkStandard, serveAgUi } from './ag-ui-server';

const pay = tool({
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => ({ paid: amount }),
});

/**
 * Holds the model's stream before its `at`-th part (counted over every model request of the
 * run) until the test has reloaded: the reload lands exactly there — mid-reasoning, mid-text,
 * mid-arguments, after the answer — whatever the machine's speed.
 */
class Gate {
  count = 0;
  reached: Promise<void>;
  #reach = () => {};
  #release = () => {};
  readonly #released: Promise<void>;
  constructor(readonly at: number) {
    this.reached = new Promise((resolve) => {
      this.#reach = resolve;
    });
    this.#released = new Promise((resolve) => {
      this.#release = resolve;
    });
  }
  release() {
    this.#release();
  }
  /** The model with its stream held at the gate. */
  hold<M extends ReturnType<typeof scriptedModel>>(model: M): M {
    const doStream = model.doStream.bind(model);
    model.doStream = async (options) => {
      const result = await doStream(options);
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform: async (part, controller) => {
            if (this.count++ === this.at) {
              this.#reach();
              await this.#released;
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    };
    return model;
  }
}

let gate = new Gate(-1);

/**
 * A run that streams reasoning and text, calls a tool that needs approval (its arguments
 * streamed), pauses for the answer, then runs the tool and streams more text.
 */
const run = () => ({
  model: gate.hold(
    scriptedModel([
      {
        reasoning: 'The user wants to pay five, which needs an approval first.',
        text: 'I will pay five now, once you approve the payment request below.',
        toolCalls: [{ toolName: 'pay', input: { amount: 5, note: 'for the order' } }],
      },
      { text: 'Paid five. Anything else I can do for you today?' },
    ]),
  ),
  tools: { pay },
  toolApproval: { pay: 'user-approval' as const },
  stopWhen: isStepCount(5),
});

/**
 * Collects every event an agent's streams deliver, one list per stream, and every failure
 * (`@ag-ui/client` reports a stream that fails its verification to `onRunFailed` and resolves).
 */
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

/** A page reload: a new agent that knows only the run's id, connected to it. */
function reload(url: string, runId: string) {
  const agent = new RunlightAgent({ url, runId });
  const streams = recorder(agent);
  let snapshot = () => {};
  const snapshotSeen = new Promise<void>((resolve) => {
    snapshot = resolve;
  });
  agent.subscribe({
    onMessagesSnapshotEvent: () => {
      snapshot();
    },
  });
  return { agent, streams, snapshotSeen, done: agent.connectAgent() };
}

const offeredIn = (streams: BaseEvent[][]) =>
  streams
    .flat()
    .flatMap((event) =>
      event.type === 'RUN_FINISHED'
        ? ((event as { outcome?: { interrupts?: { id: string }[] } }).outcome?.interrupts ?? [])
        : [],
    );

/** The conversation as compared: each message without the metadata AG-UI folds in. */
const withoutMetadata = (messages: readonly Message[]) =>
  messages.map(({ ...message }) => {
    delete (message as { metadata?: unknown }).metadata;
    return message;
  });

/**
 * Two servers: the runtime's default checkpoint cadence (a reload's snapshot holds the last
 * structural checkpoint, the text after it arrives as live deltas) and a checkpoint every 2
 * stream events (the snapshot holds half a text or half the arguments, the rest follows live).
 */
let servers: AgUiServer[] = [];
beforeAll(async () => {
  servers = [await serveAgUi(run), await serveAgUi(run, { checkpointEveryEvents: 2 })];
});
afterAll(() => Promise.all(servers.map((server) => server.close())));

describe('reconnect at any point of a run', () => {
  it('the reloaded client holds what an uninterrupted one holds; an answered approval is never offered again', async () => {
    await fc.assert(
      fc.asyncProperty(
        // The model part the reload lands before (past the run's parts: after its end), or
        // while the approval waits.
        fc.oneof(fc.nat({ max: 70 }), fc.constant('awaiting-approval' as const)),
        fc.nat({ max: 1 }),
        async (point, which) => {
          const server = servers[which]!;
          gate = new Gate(point === 'awaiting-approval' ? -1 : point);
          const watcher = new RunlightAgent({ url: server.url, threadId: 'thread-p' });
          watcher.addMessage({ id: 'user-1', role: 'user', content: 'Pay 5' });
          const watched = recorder(watcher);
          let reloaded: ReturnType<typeof reload> | null = null;
          const reloads: ReturnType<typeof reload>[] = [];
          let runStarted = () => {};
          const runIdKnown = new Promise<void>((resolve) => {
            runStarted = resolve;
          });
          watcher.subscribe({ onRunStartedEvent: () => runStarted() });
          void gate.reached.then(async () => {
            await runIdKnown;
            reloaded = reload(server.url, watcher.runId!);
            reloads.push(reloaded);
            // The reloaded page holds its snapshot before the run goes on (or its reload failed:
            // the run goes on, and the assertions below say why).
            await Promise.race([reloaded.snapshotSeen, reloaded.done.catch(() => {})]);
            gate.release();
          });

          const started = watcher.runAgent();
          await started;
          const [interrupt] = watcher.pendingInterrupts;
          expect(interrupt).toBeDefined();
          if (point === 'awaiting-approval') {
            reloaded = reload(server.url, watcher.runId!);
            reloads.push(reloaded);
          }
          await reloaded?.done;
          const offeredBefore = reloaded ? reloaded.agent.pendingInterrupts : [];
          await watcher.runAgent({
            resume: [
              { interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } },
            ],
          });
          // The watcher's own continuation never offers the approval it just answered.
          expect(watcher.pendingInterrupts).toEqual([]);
          await reloaded?.done;
          if (
            reloaded === null ||
            offeredBefore.length > 0 ||
            reloaded.agent.pendingInterrupts.length > 0
          ) {
            // Reloaded while the approval waited (the watcher answered it since), or the run
            // ended before the reload point: reload now. It must not offer the approval again.
            reloaded = reload(server.url, watcher.runId!);
            reloads.push(reloaded);
            await reloaded.done;
          }
          const final = reloaded!;
          expect(final.agent.pendingInterrupts).toEqual([]);
          expect(offeredIn(final.streams)).toEqual([]);
          // No text doubled, nothing missing: the reloaded page holds the watcher's messages.
          expect(withoutMetadata(final.agent.messages)).toEqual(withoutMetadata(watcher.messages));
          // Every stream passed the client's own verification as it arrived…
          expect(
            [watched, ...reloads.map((each) => each.streams)].flatMap((each) => each.failures),
          ).toEqual([]);
          // …and passes the schemas and the verification again, whole.
          for (const stream of [...watched, ...reloads.flatMap((each) => each.streams)]) {
            await checkStandard(stream);
          }
        },
      ),
      { numRuns: 16 },
    );
  }, 300_000);
});
