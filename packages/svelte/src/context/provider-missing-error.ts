const MARKER = Symbol.for('runlight.error.RunlightProviderMissingError');

/**
 * A Runlight rune or component used outside `<RunlightProvider>` (or without
 * `setRunlightContext`). `hook` names the caller. `isInstance` works across package copies and
 * across the React and Svelte bindings (the same marker).
 *
 * @example
 * if (RunlightProviderMissingError.isInstance(error)) console.log(error.hook);
 */
export class RunlightProviderMissingError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'RunlightProviderMissingError';
  /** The rune or component that needed the context, e.g. `useRunActivity`. */
  readonly hook: string;

  constructor(hook: string) {
    super(
      `${hook} must be used inside <RunlightProvider client={…}> (or after setRunlightContext): no Runlight context was found above this component. ` +
        'Wrap your app (or this part of it) in <RunlightProvider baseUrl="/api">.',
    );
    this.hook = hook;
  }

  static isInstance(error: unknown): error is RunlightProviderMissingError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
