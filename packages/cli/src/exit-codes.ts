/**
 * What the `runlight` process exits with — a CI step asserts a run's end with them:
 * - `0` the run completed (`history`: the waterfall was printed);
 * - `1` the run failed (`runs`: any run failed);
 * - `2` the run was cancelled (`runs`: none failed, any cancelled);
 * - `3` usage: an unknown command or option, a missing or malformed argument;
 * - `4` the run could not be read: access refused (401/403), the run does not exist (past
 *   `--wait`), the server unreachable or answering errors (past `--wait`), access revoked mid-run;
 * - `5` an unexpected error of `runlight` itself (a bug: please report it);
 * - `130` interrupted (Ctrl-C) before the run ended.
 */
export const EXIT_CODES = {
  completed: 0,
  failed: 1,
  cancelled: 2,
  usage: 3,
  unreadable: 4,
  internal: 5,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code of a run that ended with `status`. */
export function exitCodeOfRun(status: 'completed' | 'failed' | 'cancelled'): ExitCode {
  return EXIT_CODES[status];
}
