import { parseArgs } from 'node:util';
import { RunIdSchema } from '@runlight/protocol';

/** A command line `runlight` cannot run: exits `3` with the message and the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type CommandName = 'tail' | 'runs' | 'history';

/** What every command is given, parsed and checked. */
export interface CommandOptions {
  readonly command: CommandName;
  /** Where the run routes are mounted, e.g. `http://localhost:5173/api`. */
  readonly baseUrl: string;
  readonly runIds: readonly string[];
  /** `--header 'Name: value'`, repeatable: sent with every request. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** NDJSON on stdout (one object a line); no colour, no redrawing. */
  readonly json: boolean;
  /** `tail`: stream the assistant's text as well. */
  readonly text: boolean;
  /**
   * `tail --text`: write the answer as the run sent it, control sequences included (by default
   * they are shown, not acted on: `neutralize`).
   */
  readonly raw: boolean;
  readonly color: boolean;
  /** How long a run that does not exist yet, or a server that does not answer, is waited for. */
  readonly waitMs: number;
  /** The deployment recovers stalled runs (`createRunRecovery`): a stall reads "recovering". */
  readonly recovers: boolean;
}

export type ParsedCommandLine =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'command'; readonly options: CommandOptions };

const COMMANDS: Record<CommandName, { runIds: 'one' | 'many' }> = {
  tail: { runIds: 'one' },
  runs: { runIds: 'many' },
  history: { runIds: 'one' },
};

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses `runlight <command> <baseUrl> <runId…> [options]` with Node's built-in
 * `util.parseArgs` (strict: an unknown option is an error, not ignored). Throws `UsageError`.
 *
 * @example
 * parseCommandLine(['tail', 'http://localhost:5173/api', 'run-1', '--text']);
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  const [command, baseUrl, ...runIds] = positionals;
  if (command === undefined) throw new UsageError('Name a command: tail, runs or history');
  if (!Object.hasOwn(COMMANDS, command)) {
    throw new UsageError(`Unknown command "${command}": use tail, runs or history`);
  }
  const name = command as CommandName;
  if (baseUrl === undefined) throw new UsageError(`${name}: name the base URL of the run routes`);
  checkBaseUrl(baseUrl);
  if (runIds.length === 0) throw new UsageError(`${name}: name the run to follow`);
  if (COMMANDS[name].runIds === 'one' && runIds.length > 1) {
    throw new UsageError(`${name} follows one run; got ${runIds.length}`);
  }
  for (const runId of runIds) checkRunId(runId);
  if (values.text === true && name !== 'tail') {
    throw new UsageError('--text is an option of tail');
  }
  if (values.raw === true && values.text !== true) {
    throw new UsageError('--raw goes with tail --text (the answer as the run sent it)');
  }
  return {
    kind: 'command',
    options: {
      command: name,
      baseUrl,
      runIds,
      headers: (values.header ?? []).map(parseHeader),
      json: values.json === true,
      text: values.text === true,
      raw: values.raw === true,
      color: values['no-color'] !== true,
      waitMs: parseWait(values.wait),
      recovers: values.recovers === true,
    },
  };
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      header: { type: 'string', short: 'H', multiple: true },
      json: { type: 'boolean' },
      text: { type: 'boolean' },
      raw: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      wait: { type: 'string' },
      recovers: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

function checkBaseUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`The base URL "${text}" is not a URL (e.g. http://localhost:5173/api)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`The base URL must be http or https, not ${url.protocol}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError('The base URL takes no query or fragment');
  }
}

function checkRunId(runId: string): void {
  const result = RunIdSchema.safeParse(runId);
  if (!result.success) {
    throw new UsageError(
      `The run id "${runId}" ${result.error.issues[0]?.message ?? 'is invalid'}`,
    );
  }
}

/** `Name: value` → `[name, value]`, checked as `fetch` would (no CR/LF smuggled in). */
export function parseHeader(text: string): readonly [string, string] {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  const value = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) {
    throw new UsageError(`--header takes "Name: value" (e.g. "Authorization: Bearer …")`);
  }
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value has a line break`);
  return [name, value];
}

function parseWait(text: string | undefined): number {
  if (text === undefined) return 30_000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) {
    throw new UsageError(`--wait takes seconds from 0 to 86400, not "${text}"`);
  }
  return Math.round(seconds * 1000);
}
