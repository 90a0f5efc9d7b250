import type { UIMessage } from '@runlight/protocol';
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../testing/scripted-model';
import type { RunFinish } from '../run-options';
import { harness, user } from './harness';

const weather = tool({
  description: 'The weather',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  execute: async () => ({ sunny: true }),
});

describe('streamText options through startRun', () => {
  it('reach the model request unchanged: sampling, limits, provider options, headers, tool choice', async () => {
    const { runtime } = harness();
    const model = scriptedModel([{ text: 'Warm.' }]);
    const run = await runtime.startRun({
      runId: 'run-1',
      model,
      messages: user('Weather?'),
      tools: { weather },
      temperature: 0.3,
      maxOutputTokens: 123,
      topP: 0.9,
      seed: 7,
      stopSequences: ['END'],
      providerOptions: { scripted: { cache: 'ephemeral' } },
      headers: { 'x-tenant': 'acme' },
      toolChoice: 'none',
      telemetry: { isEnabled: false, functionId: 'chat' },
    }).done;
    expect(run.status).toBe('completed');
    const call = model.doStreamCalls[0]!;
    expect(call).toMatchObject({
      temperature: 0.3,
      maxOutputTokens: 123,
      topP: 0.9,
      seed: 7,
      stopSequences: ['END'],
      providerOptions: { scripted: { cache: 'ephemeral' } },
      toolChoice: { type: 'none' },
    });
    expect(call.headers).toMatchObject({ 'x-tenant': 'acme' });
  });

  it('call onStepEnd per step and onFinish once with the run and its final checkpointed message', async () => {
    const { runtime, store } = harness();
    const steps: number[] = [];
    const finishes: RunFinish[] = [];
    const run = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello there.' }]),
      messages: user('Hi'),
      onStepEnd: (step) => void steps.push(step.stepNumber),
      onFinish: (finish) => void finishes.push(finish),
    }).done;
    expect(steps).toEqual([0]);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]!.run).toEqual(run);
    const stored = (await store.getSnapshot('run-1')).assistant?.message as UIMessage;
    expect(finishes[0]!.message).toEqual(stored);
    expect(stored.parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'Hello there.' }),
    );
  });

  it('an onFinish that throws is logged and changes nothing stored', async () => {
    const { runtime, logs } = harness();
    const run = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello.' }]),
      messages: user('Hi'),
      onFinish: () => {
        throw new Error('app database down');
      },
    }).done;
    expect(run.status).toBe('completed');
    expect(logs).toEqual([expect.objectContaining({ level: 'warn', runId: 'run-1' })]);
  });
});
