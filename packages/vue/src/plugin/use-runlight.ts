import { hasInjectionContext, inject } from 'vue';
import { RUNLIGHT_KEY, type Runlight } from './create-runlight';
import { RunlightPluginMissingError } from './runlight-plugin-missing-error';

/**
 * The nearest Runlight plugin (`app.use(createRunlight(…))` or a `RunlightProvider` above);
 * throws `RunlightPluginMissingError` naming `hook` when there is none.
 *
 * @example
 * const { client } = useRunlight('useMyRunWidget');
 */
export function useRunlight(hook = 'useRunlight'): Runlight {
  const runlight = hasInjectionContext() ? inject(RUNLIGHT_KEY, null) : null;
  if (runlight === null) throw new RunlightPluginMissingError(hook);
  return runlight;
}
