const MARKER = Symbol.for('runlight.error');

/**
 * Base of every error the runtime throws on purpose. `isInstance` works across copies of the
 * package (two versions installed side by side), where `instanceof` does not.
 */
export abstract class RunlightError extends Error {
  readonly [MARKER] = true;
  abstract readonly kind: string;

  static isRunlightError(error: unknown): error is RunlightError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }

  protected static hasKind(error: unknown, kind: string): boolean {
    return RunlightError.isRunlightError(error) && error.kind === kind;
  }
}
