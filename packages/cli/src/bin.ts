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
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`runlight: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT_CODES.internal;
  },
);
