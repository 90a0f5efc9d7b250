/** Where a command writes, and what it knows of its terminal (tests pass their own). */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  /** The environment (`NO_COLOR`, `FORCE_COLOR`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C: the command stops and exits `130`. */
  readonly signal?: AbortSignal;
  /** The transport; defaults to the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch;
}

export interface CliStream {
  write(text: string): unknown;
  /** Only a TTY gets colour, redrawn lines and a ticking status line. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}
