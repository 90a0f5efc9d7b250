/** Shared by the fault tests: event predicates and a model on either model path. */
import type { RunEvent } from '@runlight/protocol';
import type { LanguageModel } from 'ai';
import { MockProviderV4 } from 'ai/test';
import { afterEach } from 'vitest';
import type { StoredRunEvent } from '../../store/log/evolve-run';
import { type ScriptedStep, scriptedModel } from '../../testing/scripted-model';

export const SECRET = 'hunter2';
export const isStatus = (change: string) => (event: StoredRunEvent) =>
  event.type === 'run-status' && event.change === change;
export const isOperation = (phase: string) => (event: StoredRunEvent) =>
  event.type === 'run-operation' && event.operation.phase === phase;
export const isCheckpoint = (event: StoredRunEvent) =>
  event.type === 'assistant-checkpoint' || event.type === 'assistant-append';
export const durableOnly = (events: RunEvent[]) =>
  events.filter((event) => event.type !== 'run-delta');

/** Runs `steps` through a concrete model or, with `id`, through the global provider. */
/** Call in a test file that uses `modelOf(…, 'id')`: restores the global provider after each test. */
export function restoreDefaultProvider(): void {
  const previousProvider = globalThis.AI_SDK_DEFAULT_PROVIDER;
  afterEach(() => {
    globalThis.AI_SDK_DEFAULT_PROVIDER = previousProvider;
  });
}
export function modelOf(path: 'object' | 'id', steps: ScriptedStep[]): LanguageModel {
  const model = scriptedModel(steps);
  if (path === 'object') return model;
  globalThis.AI_SDK_DEFAULT_PROVIDER = new MockProviderV4({
    languageModels: { 'openai/gpt-5': model },
  });
  return 'openai/gpt-5';
}
