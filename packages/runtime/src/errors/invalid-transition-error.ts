import { RunlightError } from './runlight-error';

export type TransitionRule =
  | 'run-exists'
  | 'run-ended'
  | 'run-not-acquired'
  | 'run-not-leased'
  | 'operation-in-flight'
  | 'operation-id-reused'
  | 'operation-step-backwards'
  | 'operation-must-start'
  | 'operation-unknown'
  | 'operation-identity-changed'
  | 'started-at-changed'
  | 'first-output-at-changed'
  | 'phase-not-forward'
  | 'message-not-assistant'
  | 'message-id-changed'
  | 'append-base-changed'
  | 'terminal-differs';

/** A mutation that breaks the run's state machine; nothing was stored. */
export class InvalidTransitionError extends RunlightError {
  readonly kind = 'invalid-transition';
  override readonly name = 'InvalidTransitionError';

  constructor(
    readonly runId: string,
    readonly rule: TransitionRule,
    detail: string,
  ) {
    super(`Run ${runId}: ${detail} (${rule})`);
  }

  static isInstance(error: unknown): error is InvalidTransitionError {
    return RunlightError.hasKind(error, 'invalid-transition');
  }
}
