import { APICallError } from '@ai-sdk/provider';
import { RunOperationSchema } from '@runlight/protocol';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { sdkRetryDelayMs } from '../admission/model-failure';
import { harness, user } from './harness';

/**
 * A failed attempt the AI SDK retries carries when the next attempt is due (`retryAt`) and how
 * many attempts the request may make (`maxAttempts`), so a UI can count down on the server's
 * clock — across reloads, since it is a durable record. The real AI SDK (`ai` 7) with its mock
 * model: the provider fails with a retry header, then answers.
 */

const failure = (status: number, headers: Record<string, string>) =>
  new APICallError({
    message: 'provider said no',
    url: 'mock://model',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
  });

/** Fails each request with the next error of `errors`, then streams "Done.". */
function failingThenAnswering(errors: APICallError[]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const error = errors[call++];
      if (error !== undefined) throw error;
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Done.' },
            { type: 'text-end', id: 't' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            },
          ],
        }),
      };
    },
  });
}

const ms = (iso: string | undefined) => Date.parse(iso ?? '');

describe('retryAt: when the next attempt of a retried model request is due', () => {
  it("is the failure's time plus the provider's retry-after-ms, and the next attempt starts after it", async () => {
    const h = harness();
    const model = failingThenAnswering([failure(429, { 'retry-after-ms': '250' })]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(run.status).toBe('completed');
    const [failed, ...rest] = h
      .operations()
      .filter((op) => op.attempt === 1 && op.phase === 'failed');
    expect(rest).toEqual([]);
    expect(failed).toMatchObject({
      failureReason: 'rate_limited',
      willRetry: true,
      maxAttempts: 3,
    });
    expect(ms(failed?.retryAt) - ms(failed?.endedAt)).toBe(250);
    const next = h.operations().find((op) => op.attempt === 2 && op.phase === 'started');
    expect(ms(next?.startedAt)).toBeGreaterThanOrEqual(ms(failed?.retryAt));
    // Every record is one the protocol accepts (clients parse them).
    for (const op of h.operations()) expect(RunOperationSchema.safeParse(op).success).toBe(true);
  });

  it('reads retry-after in seconds, counts attempts from maxRetries, and the last attempt has none', async () => {
    const h = harness();
    const model = failingThenAnswering([
      failure(503, { 'retry-after': '0.2' }),
      failure(503, { 'retry-after': '0.1' }),
    ]);
    const run = await h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('Hi'),
      maxRetries: 1,
    }).done;

    expect(run.status).toBe('failed');
    const failed = h.operations().filter((op) => op.phase === 'failed');
    expect(failed.map((op) => [op.attempt, op.willRetry, op.maxAttempts])).toEqual([
      [1, true, 2],
      [2, false, undefined],
    ]);
    expect(ms(failed[0]?.retryAt) - ms(failed[0]?.endedAt)).toBe(200);
    expect(failed[1]?.retryAt).toBeUndefined();
  });

  it('is stored: a reload (the snapshot) shows the same retryAt while the SDK waits', async () => {
    const h = harness();
    const model = failingThenAnswering([failure(500, { 'retry-after-ms': '400' })]);
    const handle = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') });
    const failed = await new Promise<{ retryAt?: string }>((resolve) => {
      const stop = h.runtime.subscribe(h.runId, (event) => {
        if (event.type === 'run-operation' && event.operation.willRetry === true) {
          stop();
          resolve(event.operation);
        }
      });
    });
    const snapshot = await h.store.getSnapshot(h.runId);
    expect(snapshot.run.lastOperation?.retryAt).toBe(failed.retryAt);
    expect((await handle.done).status).toBe('completed');
  });
});

describe("sdkRetryDelayMs: the AI SDK's wait before a retry", () => {
  const now = Date.parse('2026-12-02T12:00:00.000Z');
  it('doubles 2 s per attempt without a header', () => {
    const error = failure(503, {});
    expect([1, 2, 3].map((attempt) => sdkRetryDelayMs(error, attempt, now))).toEqual([
      2000, 4000, 8000,
    ]);
  });

  it('takes retry-after-ms first, then retry-after seconds or an HTTP date, under 60 s', () => {
    expect(sdkRetryDelayMs(failure(429, { 'retry-after-ms': '1500', 'retry-after': '9' }), 1)).toBe(
      1500,
    );
    expect(sdkRetryDelayMs(failure(429, { 'retry-after': '3' }), 1, now)).toBe(3000);
    const date = new Date(now + 5000).toUTCString();
    expect(sdkRetryDelayMs(failure(429, { 'retry-after': date }), 1, now)).toBe(5000);
    // A header past 60 s (and past the backoff) is ignored, as the SDK ignores it.
    expect(sdkRetryDelayMs(failure(429, { 'retry-after': '120' }), 1, now)).toBe(2000);
    expect(sdkRetryDelayMs(failure(429, { 'retry-after': 'soon' }), 2, now)).toBe(4000);
  });
});
