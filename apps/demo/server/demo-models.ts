import { MockLanguageModelV4 } from 'ai/test';

/**
 * Provider error text of the failing scenario. It looks like a leaked credential on purpose:
 * the runtime must keep it in the server log, and the end-to-end tests assert it never
 * reaches the page.
 */
export const PROVIDER_SECRET = 'sk-live-demo-7f3a9c21e4b8-DO-NOT-LEAK';

type CallOptions = Parameters<MockLanguageModelV4['doStream']>[0];

/**
 * A scripted model that answers the next request from `approved` or `denied`, depending on
 * whether the prompt's last tool message reports a denied execution — like a real model
 * reading the tool result. Each branch plays its own script from its first step.
 *
 * @example
 * const model = decidingModel({ first, approved, denied });
 */
export function decidingModel(branches: {
  first: MockLanguageModelV4;
  approved: MockLanguageModelV4;
  denied: MockLanguageModelV4;
  /** Requests `first` answers (a retried request is two). Default 1. */
  firstCalls?: number;
}): MockLanguageModelV4 {
  const firstCalls = branches.firstCalls ?? 1;
  let calls = 0;
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-model',
    doStream: (options: CallOptions) => {
      if (calls++ < firstCalls) return branches.first.doStream(options);
      const last = JSON.stringify(options.prompt.at(-1) ?? {});
      return (last.includes('execution-denied') ? branches.denied : branches.approved).doStream(
        options,
      );
    },
  });
}

/**
 * `model` whose streams stop before a content part while `gate(call, part, signal)` returns a
 * promise: `call` counts the model's requests from 0, `part` the content parts of that request
 * from 0 (`stream-start` and metadata are not content). The part goes on once the promise
 * resolves; a rejection (a cancel) errors the stream. `undefined` lets the part through at once.
 *
 * @example
 * gatedModel(model, (call, part, signal) =>
 *   call === 0 && part === 0 ? gates.wait(runId, 'first-token', signal) : undefined);
 */
export function gatedModel(
  model: MockLanguageModelV4,
  gate: (call: number, part: number, signal?: AbortSignal) => Promise<void> | undefined,
): MockLanguageModelV4 {
  const doStream = model.doStream.bind(model);
  let calls = 0;
  model.doStream = async (options: CallOptions) => {
    const call = calls++;
    const result = await doStream(options);
    let parts = 0;
    const stream = result.stream.pipeThrough(
      new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'stream-start' || part.type === 'response-metadata') {
            controller.enqueue(part);
            return;
          }
          const held = gate(call, parts++, options.abortSignal);
          if (held === undefined) {
            controller.enqueue(part);
            return;
          }
          return held.then(() => controller.enqueue(part));
        },
      }),
    );
    return { ...result, stream };
  };
  return model;
}

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;
