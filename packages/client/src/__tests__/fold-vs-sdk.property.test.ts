import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { readUIMessageStream } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyChunk, applyChunks, workOn } from '../merge/apply-chunks';

/*
 * The client's fold against the AI SDK's own: any chunk stream the SDK emits for one assistant
 * message goes through `readUIMessageStream` and through Runlight's fold (`applyChunk`, as the
 * live overlay materialises it, and `applyChunks`, as an `assistant-append` is applied), and the
 * messages must be the same — compared as JSON, the form both travel and are stored in (a key
 * whose value is `undefined` is no key).
 */

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const metadata = fc.option(fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.jsonValue()), {
  nil: undefined,
});
const providerMetadata = fc.option(
  fc.record({ p: fc.record({ k: fc.constantFrom('x', 'y', 1, true) }) }),
  { nil: undefined },
);
const word = fc.string({ minLength: 0, maxLength: 6 });
const toolName = fc.constantFrom('pay', 'lookup', 'get-weather');

type Block = (ids: { next: () => string }) => fc.Arbitrary<UIMessageChunk[]>;

const textLike =
  (kind: 'text' | 'reasoning'): Block =>
  (ids) =>
    fc
      .tuple(fc.array(word, { maxLength: 4 }), providerMetadata, providerMetadata, fc.boolean())
      .map(([deltas, startMeta, endMeta, ends]) => {
        const id = ids.next();
        const chunks: UIMessageChunk[] = [
          { type: `${kind}-start`, id, ...(startMeta ? { providerMetadata: startMeta } : {}) },
          ...deltas.map((delta) => ({ type: `${kind}-delta` as const, id, delta })),
        ];
        if (ends) {
          chunks.push({
            type: `${kind}-end`,
            id,
            ...(endMeta ? { providerMetadata: endMeta } : {}),
          });
        }
        return chunks;
      });

/** A tool call as the SDK streams it: input start/deltas, then available or error, then maybe an approval and an outcome. */
const toolCall: Block = (ids) =>
  fc
    .record({
      name: toolName,
      dynamic: fc.boolean(),
      title: fc.option(word, { nil: undefined }),
      input: fc.dictionary(
        fc.constantFrom('q', 'n'),
        fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
      ),
      cuts: fc.array(fc.nat(), { maxLength: 3 }),
      streamed: fc.boolean(),
      inputEnd: fc.constantFrom('available', 'error', 'none'),
      providerExecuted: fc.option(fc.boolean(), { nil: undefined }),
      callMeta: providerMetadata,
      resultMeta: providerMetadata,
      approval: fc.constantFrom('none', 'requested', 'approved', 'denied'),
      outcome: fc.constantFrom('none', 'available', 'error', 'denied'),
      preliminary: fc.option(fc.boolean(), { nil: undefined }),
      output: fc.jsonValue(),
      startMeta: providerMetadata,
      toolMetadata: fc.option(fc.record({ owner: fc.constantFrom('a', 'b') }), { nil: undefined }),
      outputToolMetadata: fc.option(fc.record({ cost: fc.nat({ max: 9 }) }), { nil: undefined }),
      textInput: fc.boolean(),
    })
    .map((call) => {
      const toolCallId = ids.next();
      const dynamic = call.dynamic ? { dynamic: true as const } : {};
      const chunks: UIMessageChunk[] = [];
      const toolMetadata = call.toolMetadata ? { toolMetadata: call.toolMetadata } : {};
      if (call.streamed) {
        const text = JSON.stringify(call.input);
        chunks.push({
          type: 'tool-input-start',
          toolCallId,
          toolName: call.name,
          ...dynamic,
          ...toolMetadata,
          ...(call.textInput ? { inputEncoding: 'text' as const } : {}),
          ...(call.startMeta ? { providerMetadata: call.startMeta } : {}),
          ...(call.title === undefined ? {} : { title: call.title }),
          ...(call.providerExecuted === undefined
            ? {}
            : { providerExecuted: call.providerExecuted }),
        });
        const cuts = [...new Set(call.cuts.map((cut) => cut % (text.length + 1)))].sort(
          (a, b) => a - b,
        );
        let from = 0;
        for (const cut of [...cuts, text.length]) {
          if (cut <= from) continue;
          chunks.push({
            type: 'tool-input-delta',
            toolCallId,
            inputTextDelta: text.slice(from, cut),
          });
          from = cut;
        }
      }
      if (call.inputEnd === 'none') return chunks;
      if (call.inputEnd === 'error') {
        chunks.push({
          type: 'tool-input-error',
          toolCallId,
          toolName: call.name,
          input: call.input,
          errorText: 'bad input',
          ...dynamic,
          ...(call.callMeta ? { providerMetadata: call.callMeta } : {}),
        });
        return chunks;
      }
      chunks.push({
        type: 'tool-input-available',
        toolCallId,
        toolName: call.name,
        input: call.input,
        ...dynamic,
        ...toolMetadata,
        ...(call.title === undefined ? {} : { title: call.title }),
        ...(call.providerExecuted === undefined ? {} : { providerExecuted: call.providerExecuted }),
        ...(call.callMeta ? { providerMetadata: call.callMeta } : {}),
      });
      const approvalId = `approval-${toolCallId}`;
      if (call.approval !== 'none') {
        chunks.push({ type: 'tool-approval-request', toolCallId, approvalId });
        if (call.approval === 'requested') return chunks;
        chunks.push({
          type: 'tool-approval-response',
          approvalId,
          approved: call.approval === 'approved',
          ...(call.approval === 'denied' ? { reason: 'no' } : {}),
        });
        if (call.approval === 'denied') {
          chunks.push({ type: 'tool-output-denied', toolCallId });
          return chunks;
        }
      }
      if (call.outcome === 'available') {
        chunks.push({
          type: 'tool-output-available',
          toolCallId,
          output: call.output,
          ...(call.outputToolMetadata ? { toolMetadata: call.outputToolMetadata } : {}),
          ...(call.preliminary === undefined ? {} : { preliminary: call.preliminary }),
          ...(call.resultMeta ? { providerMetadata: call.resultMeta } : {}),
        });
      } else if (call.outcome === 'error') {
        chunks.push({
          type: 'tool-output-error',
          toolCallId,
          errorText: 'it broke',
          ...(call.resultMeta ? { providerMetadata: call.resultMeta } : {}),
        });
      } else if (call.outcome === 'denied') {
        chunks.push({ type: 'tool-output-denied', toolCallId });
      }
      return chunks;
    });

const source: Block = (ids) =>
  fc.oneof(
    fc
      .record({ title: fc.option(word, { nil: undefined }), meta: providerMetadata })
      .map(({ title, meta }): UIMessageChunk[] => [
        {
          type: 'source-url',
          sourceId: ids.next(),
          url: 'https://example.com/a',
          ...(title === undefined ? {} : { title }),
          ...(meta ? { providerMetadata: meta } : {}),
        },
      ]),
    fc
      .record({ filename: fc.option(word, { nil: undefined }) })
      .map(({ filename }): UIMessageChunk[] => [
        {
          type: 'source-document',
          sourceId: ids.next(),
          mediaType: 'application/pdf',
          title: 'Doc',
          ...(filename === undefined ? {} : { filename }),
        },
      ]),
  );

const file: Block = () =>
  fc
    .record({ reasoning: fc.boolean(), meta: providerMetadata })
    .map(({ reasoning, meta }): UIMessageChunk[] => [
      {
        type: reasoning ? 'reasoning-file' : 'file',
        mediaType: 'image/png',
        url: 'data:image/png;base64,AA==',
        ...(meta ? { providerMetadata: meta } : {}),
      },
    ]);

const data: Block = () =>
  fc
    .record({
      name: fc.constantFrom('data-weather', 'data-progress'),
      id: fc.option(fc.constantFrom('d1', 'd2'), { nil: undefined }),
      value: fc.jsonValue(),
      transient: fc.boolean(),
    })
    .map(({ name, id, value, transient }): UIMessageChunk[] => [
      {
        type: name as `data-${string}`,
        data: value,
        ...(id === undefined ? {} : { id }),
        ...(transient ? { transient: true } : {}),
      },
    ]);

const messageMetadata: Block = () =>
  metadata.map((value): UIMessageChunk[] =>
    value === undefined ? [] : [{ type: 'message-metadata', messageMetadata: value }],
  );

/** A step the SDK discards (a retried step) and chunks that change no part. */
const resetAndNoise: Block = () =>
  fc.constantFrom<UIMessageChunk[]>(
    [{ type: 'reset-step' }],
    [{ type: 'error', errorText: 'provider said no' }],
    [{ type: 'abort' }],
    [{ type: 'data-ping', data: 1, transient: true }],
  );

const blocks: Block[] = [
  resetAndNoise,
  textLike('text'),
  textLike('reasoning'),
  toolCall,
  source,
  file,
  data,
  messageMetadata,
];

/** One message's chunk stream: start, steps of blocks, finish. */
const stream = fc
  .record({
    messageId: fc.option(fc.constantFrom('msg-1', 'msg-2'), { nil: undefined }),
    startMeta: metadata,
    finishMeta: metadata,
    steps: fc.array(fc.array(fc.nat({ max: blocks.length - 1 }), { maxLength: 5 }), {
      minLength: 1,
      maxLength: 3,
    }),
    seed: fc.integer(),
  })
  .chain(({ messageId, startMeta, finishMeta, steps }) => {
    let counter = 0;
    const ids = { next: () => `id-${++counter}` };
    const stepArbitraries = steps.map((kinds) =>
      fc.tuple(...kinds.map((kind) => blocks[kind]!(ids))).map((parts) => parts.flat()),
    );
    return fc.tuple(...stepArbitraries).map((stepChunks) => {
      const chunks: UIMessageChunk[] = [
        {
          type: 'start',
          ...(messageId === undefined ? {} : { messageId }),
          ...(startMeta === undefined ? {} : { messageMetadata: startMeta }),
        },
      ];
      for (const step of stepChunks) {
        chunks.push({ type: 'start-step' }, ...step, { type: 'finish-step' });
      }
      chunks.push({
        type: 'finish',
        ...(finishMeta === undefined ? {} : { messageMetadata: finishMeta }),
      });
      return chunks;
    });
  });

/**
 * A last chunk that makes `readUIMessageStream` yield its state (it yields a snapshot only when
 * a chunk writes one: a trailing `start-step` changes the state without one); both folds get it
 * and it is taken off both messages again.
 */
const SENTINEL: UIMessageChunk = { type: 'data-sentinel', data: null };
const withoutSentinel = (message: unknown) => {
  const value = message as UIMessage;
  expect(value.parts.at(-1)?.type).toBe('data-sentinel');
  return { ...value, parts: value.parts.slice(0, -1) };
};

/** The AI SDK's message for `chunks`: `readUIMessageStream`'s last snapshot. */
async function sdkFold(chunks: readonly UIMessageChunk[], message?: UIMessage): Promise<unknown> {
  chunks = [...chunks, SENTINEL];
  let last: unknown = message ?? { id: '', role: 'assistant', parts: [] };
  const errors: unknown[] = [];
  const source = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(structuredClone(chunk));
      controller.close();
    },
  });
  for await (const snapshot of readUIMessageStream({
    stream: source as never,
    ...(message === undefined ? {} : { message: structuredClone(message) as never }),
    onError: (error) => errors.push(error),
  })) {
    last = snapshot;
  }
  // The SDK reports an `error` chunk through `onError`; a chunk it rejects is a generator bug.
  const rejected = errors.filter((error) => (error as Error).name === 'AI_UIMessageStreamError');
  expect(rejected).toEqual([]);
  return json(withoutSentinel(last));
}

/** Runlight's live overlay: a message materialised from chunks, named by `start`. */
function overlayFold(chunks: readonly UIMessageChunk[]): unknown {
  const work = workOn(undefined, '', 0);
  for (const chunk of [...chunks, SENTINEL]) applyChunk(work, structuredClone(chunk));
  const message: UIMessage = { id: work.id, role: 'assistant', parts: work.parts };
  if (work.metadata !== undefined) message.metadata = work.metadata;
  return json(withoutSentinel(message));
}

/** Where a chunk stream can be cut with no text or reasoning part open (1 … length). */
function safeCuts(chunks: readonly UIMessageChunk[]): number[] {
  const open = new Set<string>();
  const cuts: number[] = [];
  chunks.forEach((chunk, index) => {
    if (chunk.type === 'text-start' || chunk.type === 'reasoning-start') open.add(chunk.id);
    if (chunk.type === 'text-end' || chunk.type === 'reasoning-end') open.delete(chunk.id);
    if (open.size === 0) cuts.push(index + 1);
  });
  return cuts;
}

describe('the client’s message fold is the AI SDK’s', () => {
  it('any chunk stream the SDK emits folds to the message readUIMessageStream builds', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (chunks) => {
        const expected = await sdkFold(chunks);
        expect(overlayFold(chunks)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('an append on a checkpoint folds as the SDK continues the same message', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.nat(), async (chunks, at) => {
        // The checkpoint is the message up to a cut, the rest its append (no new start). The
        // SDK rebuilds its state from a message for tool inputs, not for a text or reasoning
        // part left open (it rejects their next delta; the fold continues them): cut where
        // none is open.
        const cuts = safeCuts(chunks);
        const cut = cuts[at % cuts.length]!;
        const checkpoint = (await sdkFold(chunks.slice(0, cut))) as UIMessage;
        const rest = chunks.slice(cut).filter((chunk) => chunk.type !== 'start');
        const expected = await sdkFold(rest, checkpoint);
        const appended = applyChunks(structuredClone(checkpoint), [...rest, SENTINEL]);
        expect(json(withoutSentinel(appended))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
