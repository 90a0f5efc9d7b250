import { afterAll, afterEach } from 'vitest';

/**
 * A Vitest setup file: any `unhandledRejection` or `uncaughtException` in the test's process
 * fails the test that was running (and the file, if none was). In production either one ends
 * the Node process, so library code must never leave one behind.
 */
const seen: string[] = [];
const describe = (kind: string, reason: unknown) =>
  `${kind}: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`;

process.on('unhandledRejection', (reason) => {
  seen.push(describe('unhandledRejection', reason));
});
process.on('uncaughtException', (error) => {
  seen.push(describe('uncaughtException', error));
});

const check = async () => {
  // A rejection is reported after the microtask queue drains: give it one macrotask.
  await new Promise((resolve) => setImmediate(resolve));
  if (seen.length === 0) return;
  const found = seen.splice(0);
  throw new Error(`library code left ${found.length} unhandled error(s):\n${found.join('\n')}`);
};

afterEach(check);
afterAll(check);
