import { type CommandName, type CommandOptions, parseCommandLine, UsageError } from './args';
import { EXIT_CODES } from './exit-codes';
import { historyCommand } from './history/history-command';
import type { CliIo } from './output/io';
import { runsCommand } from './runs/runs-command';
import { tailCommand } from './tail/tail-command';
import { cliVersion } from './version';

export const USAGE = `Usage: runlight <command> <baseUrl> <runId…> [options]

Commands:
  tail <baseUrl> <runId>       Print each phase change of a run until it ends; the exit code
                               says how it ended
  runs <baseUrl> <runId…>      A live table of several runs over one multiplexed stream
  history <baseUrl> <runId>    The run's operations as a waterfall

<baseUrl> is where the run routes are mounted, e.g. http://localhost:5173/api.

Options:
  -H, --header "Name: value"   Send a header with every request (repeatable), e.g. credentials
      --json                   Machine output: one JSON object a line, no colour
      --text                   tail: stream the assistant's text as well (control
                               characters shown, never acted on)
      --raw                    with --text: the text as the run sent it, control
                               sequences included (only for runs you trust)
      --wait <seconds>         Wait this long for a run that does not exist yet or a server that
                               does not answer, at any time (default 30)
      --recovers               The deployment recovers stalled runs (a stall reads "recovering")
      --no-color               No colour (also NO_COLOR=1; colour only on a TTY)
  -h, --help                   This help
  -v, --version                The version

Examples:
  runlight tail http://localhost:5173/api run-1 --text
  runlight runs https://example.com/api run-1 run-2 -H "Authorization: Bearer $TOKEN"
  runlight history http://localhost:3000/api run-1 --json

Exit codes:
  0  the run completed (history: printed)    3  usage error
  1  the run failed (runs: any failed)       4  the run could not be read (access refused,
  2  the run was cancelled (runs: any)          not found, server unreachable)
  5  an unexpected error of runlight itself    130 interrupted
`;

const COMMANDS: Record<CommandName, (options: CommandOptions, io: CliIo) => Promise<number>> = {
  tail: tailCommand,
  runs: runsCommand,
  history: historyCommand,
};

/**
 * Runs `runlight` with its arguments (without `node` and the script) and resolves with the
 * exit code — what the `runlight` bin calls; tests call it with their own `io`.
 *
 * @example
 * const code = await main(['tail', 'http://localhost:5173/api', 'run-1'], nodeIo());
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`runlight: ${error.message}\n\n${USAGE}`);
    return EXIT_CODES.usage;
  }
  if (parsed.kind === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === 'version') {
    io.stdout.write(`${cliVersion()}\n`);
    return 0;
  }
  return COMMANDS[parsed.options.command](parsed.options, io);
}
