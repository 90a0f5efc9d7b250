import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, isPhase, nextEvent, user } from './harness';

const rule = (error: unknown) => (InvalidTransitionError.isInstance(error) ? error.rule : error);

describe('startRun of an id that exists', () => {
  it('refuses a run that ended (created and done reject run-ended) and never calls the model', async () => {
    const { runtime, store } = harness();
    const first = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello.' }]),
      messages: user('Hi'),
    }).done;
    expect(first.status).toBe('completed');

    const model = scriptedModel([{ text: 'Again.' }]);
    // Only `created` is awaited, as a start route does: `done` must not be an unhandled
    // rejection (the runtime project fails on any).
    const again = runtime.startRun({ runId: 'run-1', model, messages: user('Hi') });
    expect(rule(await again.created.catch((error: unknown) => error))).toBe('run-ended');
    expect(rule(await again.done.catch((error: unknown) => error))).toBe('run-ended');
    expect(model.doStreamCalls).toHaveLength(0);
    expect(await store.getRun('run-1')).toEqual(first);
  });

  it('refuses a run executing in this process and one executing in another (run-exists)', async () => {
    const a = harness();
    const runningHere = a.runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Slow answer.', firstTokenMs: 40 }]),
      messages: user('Hi'),
    });
    await nextEvent(a.runtime, 'run-1', isPhase('started'));
    const here = a.runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'x' }]),
      messages: user('Hi'),
    });
    expect(rule(await here.created.catch((error: unknown) => error))).toBe('run-exists');

    // A second runtime (another process) over the same store.
    const b = harness({ store: a.store, owner: 'worker-b' });
    const model = scriptedModel([{ text: 'x' }]);
    const elsewhere = b.runtime.startRun({ runId: 'run-1', model, messages: user('Hi') });
    expect(rule(await elsewhere.created.catch((error: unknown) => error))).toBe('run-exists');
    expect(model.doStreamCalls).toHaveLength(0);

    const run = await runningHere.done;
    expect(run.status).toBe('completed');
    expect(run.owner).toBe('worker-a');
  });

  it('still starts a run that was created and never acquired (queued)', async () => {
    const { runtime, store } = harness();
    await store.createRun({ runId: 'run-1' });
    const run = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello.' }]),
      messages: user('Hi'),
    }).done;
    expect(run.status).toBe('completed');
  });
});
