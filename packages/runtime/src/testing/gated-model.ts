import { wrapLanguageModel } from 'ai';
import { type ScriptedModelOptions, type ScriptedStep, scriptedModel } from './scripted-model';

/**
 * A scripted model whose requests hold before they reach the provider until the test calls
 * `open()`: a provider wait exactly as long as the test needs, instead of a `firstTokenMs`
 * that races the test on a loaded machine. Once open, every request goes on at once. A
 * request whose abort signal fires while it is held (a cancelled run) rejects with the
 * signal's reason, as a real provider call does.
 *
 * @example
 * const { model, open } = gatedModel([{ text: 'Hello.' }]);
 * runtime.startRun({ runId: 'run-1', model, messages });
 * // … the run waits for the model for as long as the test looks …
 * open();
 */
export function gatedModel(steps: readonly ScriptedStep[], options: ScriptedModelOptions = {}) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const model = wrapLanguageModel({
    model: scriptedModel(steps, options),
    middleware: {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream, params }) => {
        await held(gate, params.abortSignal);
        return doStream();
      },
    },
  });
  return { model, open };
}

/** `gate`, or the signal's reason as soon as it aborts. */
function held(gate: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return gate;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    gate.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
