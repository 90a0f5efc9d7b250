/*
 * The shutdown's abort reason in a leaf of its own: an execution's stop reads it, and the
 * shutdown reads the execution's context — beside the shutdown they imported each other.
 */

/**
 * The abort reason of a graceful shutdown: not a cancel. The execution stops its model stream,
 * checkpoints its text, ends its in-flight operation and hands its lease off; the run stays
 * `running` for another runner's recovery to continue.
 */
export class ShutdownAbort extends Error {
  override readonly name = 'ShutdownAbort';
  constructor() {
    super('the runtime is shutting down');
  }
}

export function isShutdownAbort(reason: unknown): reason is ShutdownAbort {
  return reason instanceof ShutdownAbort;
}
