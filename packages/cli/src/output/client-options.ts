import type { RunlightClientOptions } from '@runlight/client';
import type { CommandOptions } from '../args';
import type { CliIo } from './io';

/** The client options of a command: its base URL, `--header`s on every request, `--wait`. */
export function clientOptions(options: CommandOptions, io: CliIo): RunlightClientOptions {
  return {
    baseUrl: options.baseUrl,
    headers: options.headers.map(([name, value]) => [name, value]),
    notFoundRetryMs: options.waitMs,
    // The CLI watches runs it did not start: `--wait` is its grace for every one of them.
    unknownRunRetryMs: options.waitMs,
    reconnect: { initialDelayMs: 250, maxDelayMs: 5_000 },
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
  };
}
