import type { RunlightClientOptions } from '@runlight/client';
import type { CommandOptions } from '../args';
import type { CliIo } from './io';
import { sameOriginFetch } from './same-origin-fetch';

/**
 * The client options of a command: its base URL, `--header`s on every request — and on no
 * request to another origin (`sameOriginFetch`) — and `--wait`.
 */
export function clientOptions(options: CommandOptions, io: CliIo): RunlightClientOptions {
  const said = new Set<string>();
  const inner = io.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return {
    baseUrl: options.baseUrl,
    headers: options.headers.map(([name, value]) => [name, value]),
    notFoundRetryMs: options.waitMs,
    // The CLI watches runs it did not start: `--wait` is its grace for every one of them.
    unknownRunRetryMs: options.waitMs,
    reconnect: { initialDelayMs: 250, maxDelayMs: 5_000 },
    fetch: sameOriginFetch(inner, (from, to) => {
      if (said.has(to)) return;
      said.add(to);
      io.stderr.write(
        `runlight: ${from} redirects to ${to}, another origin: not followed — --header values are never sent to another origin (use that origin in the base URL if you trust it)\n`,
      );
    }),
  };
}
