export type { CommandName, CommandOptions, ParsedCommandLine } from './args';
export { parseCommandLine, parseHeader, UsageError } from './args';
export type { ExitCode } from './exit-codes';
export { EXIT_CODES, exitCodeOfRun } from './exit-codes';
export { main, USAGE } from './main';
export type { CliIo, CliStream } from './output/io';
export type { AwaitedApproval, TailRecord } from './tail/tail-records';
