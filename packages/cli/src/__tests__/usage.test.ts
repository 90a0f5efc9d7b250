import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../args';
import { EXIT_CODES } from '../exit-codes';
import { runCli } from './harness';

const url = 'http://localhost:5173/api';

describe('runlight: the command line', () => {
  it.each([
    [[], 'Name a command: tail, runs or history'],
    [['watch', url, 'run-1'], 'Unknown command "watch": use tail, runs or history'],
    [['tail'], 'tail: name the base URL of the run routes'],
    [['tail', url], 'tail: name the run to follow'],
    [['tail', 'localhost:5173', 'run-1'], 'The base URL must be http or https, not localhost:'],
    [
      ['tail', 'not a url', 'run-1'],
      'The base URL "not a url" is not a URL (e.g. http://localhost:5173/api)',
    ],
    [['tail', `${url}?x=1`, 'run-1'], 'The base URL takes no query or fragment'],
    [['tail', url, 'run-1', 'run-2'], 'tail follows one run; got 2'],
    [['tail', url, 'run 1'], 'The run id "run 1" may only contain letters, digits and . _ ~ : -'],
    [['runs', url, 'run-1', '--text'], '--text is an option of tail'],
    [['tail', url, 'run-1', '--wait', 'soon'], '--wait takes seconds from 0 to 86400, not "soon"'],
    [
      ['tail', url, 'run-1', '-H', 'Bearer abc'],
      '--header takes "Name: value" (e.g. "Authorization: Bearer …")',
    ],
    [['tail', url, 'run-1', '--colour'], "Unknown option '--colour'"],
  ])('%j is a usage error (exit 3) that says what is wrong', async (argv, message) => {
    const run = runCli(argv);
    expect(await run.exit).toBe(EXIT_CODES.usage);
    expect(run.stderr().split('\n')[0]).toContain(`runlight: ${message}`);
    expect(run.stderr()).toContain('Usage: runlight <command>');
    expect(run.stdout()).toBe('');
  });

  it('never echoes a header value it refuses (it may be a credential)', async () => {
    const run = runCli(['tail', url, 'run-1', '-H', 'Bad Name: sk-live-123']);
    expect(await run.exit).toBe(EXIT_CODES.usage);
    expect(run.stderr()).not.toContain('sk-live-123');
  });

  it('--help prints the usage and exits 0; --version the package version', async () => {
    const help = runCli(['--help']);
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toContain('runlight tail');
    expect(help.stdout()).toMatch(/Exit codes:/);
    const version = runCli(['-v']);
    expect(await version.exit).toBe(0);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(version.stdout()).toBe(`${pkg.version}\n`);
  });

  it('parses repeated headers, --json, --wait and --no-color', () => {
    const parsed = parseCommandLine([
      'runs',
      url,
      'a',
      'b',
      '-H',
      'Authorization: Bearer t',
      '--header',
      'x-tenant:  acme ',
      '--json',
      '--wait',
      '1.5',
      '--no-color',
      '--recovers',
    ]);
    expect(parsed).toEqual({
      kind: 'command',
      options: {
        command: 'runs',
        baseUrl: url,
        runIds: ['a', 'b'],
        headers: [
          ['Authorization', 'Bearer t'],
          ['x-tenant', 'acme'],
        ],
        json: true,
        text: false,
        raw: false,
        color: false,
        waitMs: 1500,
        recovers: true,
      },
    });
  });
});
