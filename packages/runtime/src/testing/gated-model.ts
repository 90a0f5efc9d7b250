import { wrapLanguageModel } from 'ai';
import { type ScriptedStep, scriptedModel } from './scripted-model';

/**
 * A scripted model whose first request holds until the test calls `open()`: a provider wait
 * as long as the test needs, instead of a first-token delay that races it on a loaded machine.
 */
export function gatedModel(steps: readonly ScriptedStep[]) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const model = wrapLanguageModel({
    model: scriptedModel(steps),
    middleware: {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        await gate;
        return doStream();
      },
    },
  });
  return { model, open };
}
