/**
 * The arguments of a default log's `console.error` call: the line, and the error (its stack)
 * only when the entry has one — never a trailing `undefined` on an entry without.
 *
 * @example
 * console.error(...logArguments('[runlight] info run r1: taken over', entry.error));
 */
export function logArguments(line: string, error: unknown): unknown[] {
  return error === undefined ? [line] : [line, error];
}
