import { type RunServer, serveRunHandlers } from '@runlight/runtime/test-kit';
import { afterEach, vi } from 'vitest';
import { main } from '../main';
import type { CliIo } from '../output/io';

/** Generous on a loaded machine: waits are for events, not for speed. */
export const waitFor = <T>(check: () => T | Promise<T>, timeout = 15_000) =>
  vi.waitFor(check, { timeout, interval: 10 });

/** What a command wrote, and the promise of its exit code. */
export interface CliRun {
  readonly exit: Promise<number>;
  stdout(): string;
  stderr(): string;
  /** stdout's lines, without the trailing empty one. */
  lines(): string[];
  /** Ctrl-C. */
  interrupt(): void;
}

/**
 * Runs `runlight` in this process (`main`, as the bin calls it) with its output captured;
 * `tty` makes stdout a terminal (colour, redrawn lines).
 */
export function runCli(
  argv: readonly string[],
  options: { tty?: boolean; env?: Record<string, string>; columns?: number } = {},
): CliRun {
  let stdout = '';
  let stderr = '';
  const controller = new AbortController();
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
      isTTY: options.tty === true,
      columns: options.columns ?? 100,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    env: options.env ?? {},
    signal: controller.signal,
  };
  return {
    exit: main(argv, io),
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () =>
      stdout.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1),
    interrupt: () => controller.abort(),
  };
}

/** A real runtime behind the real run routes (and the multiplexed stream) on loopback. */
export function realServers(): () => Promise<RunServer> {
  const open: RunServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async () => {
    const server = await serveRunHandlers({ multiplex: {} });
    open.push(server);
    return server;
  };
}

export const user = (content: string) => [{ role: 'user' as const, content }];

/**
 * Holds a model's requests until `open()`: the run waits for the model (its request start is
 * recorded) for as long as a test needs, however slow the machine — a gate, not a delay.
 *
 * @example
 * const { model, open } = gated(scriptedModel([{ text: 'Hi' }]));
 */
export function gated<Model extends { doStream: (options: never) => unknown }>(
  model: Model,
): { model: Model; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const doStream = model.doStream.bind(model) as (options: never) => unknown;
  model.doStream = (async (options: never) => {
    await opened;
    return doStream(options);
  }) as Model['doStream'];
  return { model, open };
}
