const MARKER = Symbol.for('runlight.error.RunlightProviderMissingError');

/**
 * A Runlight hook or component rendered outside `<RunlightProvider>`. `hook` names the caller,
 * so the message points at the component to wrap. `isInstance` works across package copies.
 *
 * @example
 * try { render(<RunStatus runId="run-1" />); }
 * catch (error) { if (RunlightProviderMissingError.isInstance(error)) console.log(error.hook); }
 */
export class RunlightProviderMissingError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'RunlightProviderMissingError';
  /** The hook or component that needed the provider, e.g. `useRunActivity`. */
  readonly hook: string;

  constructor(hook: string) {
    super(
      `${hook} must be used inside <RunlightProvider client={…}>: no RunlightProvider was found above this component. ` +
        'Wrap your app (or this part of it) in <RunlightProvider client={createRunlightClient({ baseUrl })}>.',
    );
    this.hook = hook;
  }

  static isInstance(error: unknown): error is RunlightProviderMissingError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
