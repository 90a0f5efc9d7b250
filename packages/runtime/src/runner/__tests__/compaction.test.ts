import { describe, expect, it } from 'vitest';
import { CallbackResultError } from '../../errors/callback-result-error';
import type { RedactedError } from '../../log/redact-error';
import { scriptedModel } from '../../testing/scripted-model';
import type { CompactFunction } from '../run-options';
import { harness, user } from './harness';

const run = async (compact?: CompactFunction, h = harness()) => {
  const model = scriptedModel([{ text: 'Answer.' }]);
  const result = await h.runtime.startRun({
    runId: h.runId,
    model,
    messages: [...user('a long history'), ...user('the question')],
    compact,
  }).done;
  return { h, model, run: result };
};

describe('compaction', () => {
  it('no compact callback → no compaction event', async () => {
    const { h } = await run();
    expect(h.operations().filter((operation) => operation.kind === 'compaction')).toEqual([]);
  });

  it('compacted: started immediately before the callback, completed compacted, the model sees the result', async () => {
    const seen: unknown[] = [];
    const h = harness();
    const { model } = await run(async ({ messages, step, signal }) => {
      const last = h.operations().at(-1);
      seen.push({ step, phaseAtCall: `${last?.kind} ${last?.phase}`, aborted: signal.aborted });
      return { status: 'compacted', messages: [messages.at(-1)!] };
    }, h);
    expect(seen).toEqual([{ step: 0, phaseAtCall: 'compaction started', aborted: false }]);
    expect(h.operations().map((operation) => [operation.kind, operation.phase])).toEqual([
      ['compaction', 'started'],
      ['compaction', 'completed'],
      ['model-request', 'started'],
      ['model-request', 'first-output'],
      ['model-request', 'completed'],
    ]);
    expect(h.operations()[1]).toMatchObject({ outcome: 'compacted', step: 0 });
    expect(h.operations()[1]?.id).toMatch(/^compaction:step-0:/);
    expect(JSON.stringify(model.doStreamCalls[0]?.prompt)).not.toContain('a long history');
  });

  it('not_needed claims no summary and leaves the messages', async () => {
    const { h, model } = await run(() => ({ status: 'not_needed' }));
    expect(h.operations()[1]).toMatchObject({ kind: 'compaction', outcome: 'not_needed' });
    expect(JSON.stringify(model.doStreamCalls[0]?.prompt)).toContain('a long history');
  });

  it('a throwing callback fails the run compaction_failure before any model request', async () => {
    const {
      h,
      model,
      run: result,
    } = await run(() => {
      throw new Error('summariser down: SECRET');
    });
    expect(model.doStreamCalls).toEqual([]);
    expect(result.failure).toEqual({
      code: 'compaction_failure',
      operationId: h.operations()[0]?.id,
    });
    expect(h.operations().map((operation) => operation.phase)).toEqual(['started', 'failed']);
    expect(JSON.stringify(h.events)).not.toContain('SECRET');
  });

  it('cancellation during the callback ends compaction and run cancelled', async () => {
    const h = harness();
    const model = scriptedModel([{ text: 'never' }]);
    const handle = h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('q'),
      compact: ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason));
          h.runtime.cancelRun(h.runId);
        }),
    });
    const result = await handle.done;
    expect(result.status).toBe('cancelled');
    expect(model.doStreamCalls).toEqual([]);
    expect(h.operations().map((operation) => [operation.kind, operation.phase])).toEqual([
      ['compaction', 'started'],
      ['compaction', 'cancelled'],
    ]);
  });

  it.each([
    ['compacted without messages', { status: 'compacted' }, 'messages'],
    ['compacted with no message', { status: 'compacted', messages: [] }, 'messages'],
    [
      'compacted with a message without a role',
      { status: 'compacted', messages: [{}] },
      'messages.0.role',
    ],
    ['an unknown status', { status: 'maybe' }, 'status'],
    ['nothing at all', undefined, '(result)'],
  ])(
    'a callback returning %s fails compaction_failure, never a claim of not_needed',
    async (_name, value, path) => {
      const { h, model, run: result } = await run(() => value as never);
      expect(model.doStreamCalls).toEqual([]);
      expect(result.failure).toEqual({
        code: 'compaction_failure',
        operationId: h.operations()[0]?.id,
      });
      expect(h.operations().map((operation) => operation.phase)).toEqual(['started', 'failed']);
      // The log holds the error redacted (`redactError`): its kind and Runlight's own message,
      // which names the callback and each issue's path.
      const logged = h.logs
        .map((entry) => entry.error as RedactedError | undefined)
        .find((error) => error?.kind === new CallbackResultError('compact', []).kind);
      if (!logged) throw new Error('the invalid result was not logged as a CallbackResultError');
      expect(logged.message).toContain('The compact callback');
      expect(logged.message).toContain(`${path}:`);
    },
  );
});
