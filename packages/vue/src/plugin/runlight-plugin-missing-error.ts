/**
 * A Runlight composable or component was used where no Runlight plugin is installed (neither
 * `app.use(createRunlight(…))` nor a `RunlightProvider` above it).
 *
 * @example
 * try { useRun('run-1'); } catch (error) { if (error instanceof RunlightPluginMissingError) … }
 */
export class RunlightPluginMissingError extends Error {
  override readonly name = 'RunlightPluginMissingError';
  /** The composable or component that needed it. */
  readonly hook: string;

  constructor(hook: string) {
    super(
      `${hook} needs Runlight: install the plugin (app.use(createRunlight({ baseUrl })) ) or render it inside <RunlightProvider>.`,
    );
    this.hook = hook;
  }
}
