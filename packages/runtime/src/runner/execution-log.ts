import type { RuntimeLogEntry } from './run-options';

/** Logs an entry of this execution's run; the real error text goes here and nowhere else. */
export type ExecutionLog = (
  level: RuntimeLogEntry['level'],
  message: string,
  error?: unknown,
) => void;
