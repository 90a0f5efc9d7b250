#!/usr/bin/env node
import { EXIT_CODES } from './exit-codes';
import { main } from './main';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
}).then(
  (code) => exit(code),
  (error: unknown) => {
    process.stderr.write(`runlight: ${error instanceof Error ? error.message : String(error)}\n`);
    exit(EXIT_CODES.internal);
  },
);

/**
 * Exits once what was written has been flushed: the run's end decides when the process ends,
 * not whatever a connection or timer of the client still holds open (a keep-alive socket would
 * keep a CI step waiting).
 */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
