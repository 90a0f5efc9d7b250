import type { IncomingHttpHeaders } from 'node:http';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { jsonLine, neutralize } from '../output/neutralize';
import { realServers, runCli, user } from './harness';

const serve = realServers();
const servers = loopbackServers();
afterEach(servers.closeAll);

/** What a terminal acts on: C0 but tab/newline, DEL, C1, bidi overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const ACTS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** An answer that would write the clipboard, retitle and clear the terminal, ring, recolour. */
const HOSTILE = [
  'Hello \x1b]52;c;cHduZWQ=\x07',
  'title \x1b]0;owned\x1b\\',
  'clear \x1b[2J\x1b[H',
  'c1 \x9b31m red \x9d8;;http://evil\x9c',
  'bell \x07 back\b\b over\rwrite',
  'bidi \u202etxt.exe\u202c done.',
].join(' ');

describe('runlight is safe in a terminal: control sequences from a run are shown, not acted on', () => {
  it.each([
    ['OSC 52 clipboard', '\x1b]52;c;aGk=\x07', '␛]52;c;aGk=␇'],
    ['CSI clear screen', '\x1b[2J', '␛[2J'],
    ['C1 CSI', '\x9b31m', '<U+009B>31m'],
    ['carriage return, backspace', 'a\rb\bc', 'a␍b␈c'],
    ['CRLF is a newline; tab stays', 'a\r\nb\tc', 'a\nb\tc'],
    ['bidi override', '\u202eabc', '<U+202E>abc'],
  ])('%s', (_name, raw, shown) => {
    expect(neutralize(raw)).toBe(shown);
  });

  it('for any text: nothing left a terminal acts on, newlines kept; --json lossless and inert', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const shown = neutralize(text);
        expect(shown).not.toMatch(ACTS);
        expect(shown.split('\n').length).toBe(text.replace(/\r\n/g, '\n').split('\n').length);
        const line = jsonLine({ delta: text });
        expect(line).not.toMatch(ACTS);
        expect(line).not.toMatch(/[\u2028\u2029\n]/);
        expect(JSON.parse(line)).toEqual({ delta: text });
      }),
      { numRuns: 500 },
    );
  });

  it('tail --text writes a hostile answer inert; --raw as sent; --json escaped and lossless', async () => {
    const server = await serve();
    await server.runtime.startRun({
      runId: 'run-hostile',
      model: scriptedModel([{ text: HOSTILE }]),
      messages: user('Hi'),
    }).done;
    const shown = runCli(['tail', server.baseUrl, 'run-hostile', '--text'], { tty: true });
    const raw = runCli(['tail', server.baseUrl, 'run-hostile', '--text', '--raw']);
    const json = runCli(['tail', server.baseUrl, 'run-hostile', '--text', '--json']);
    expect(await shown.exit).toBe(0);
    expect(await raw.exit).toBe(0);
    expect(await json.exit).toBe(0);
    // On a TTY the CLI's own colours are escape sequences: everything else is not.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own SGR colours
    const withoutOwnColour = shown.stdout().replace(/\x1b\[[0-9;]*m/g, '');
    expect(withoutOwnColour).not.toMatch(ACTS);
    expect(withoutOwnColour).toContain('Hello ␛]52;c;cHduZWQ=␇');
    expect(withoutOwnColour).toContain('<U+202E>txt.exe');
    expect(raw.stdout()).toContain(HOSTILE);
    expect(json.stdout()).not.toMatch(ACTS);
    const text = json
      .lines()
      .map((line) => JSON.parse(line))
      .filter((record) => record.type === 'text')
      .map((record) => record.delta)
      .join('');
    expect(text).toBe(HOSTILE);
  });

  it('--raw goes with --text only', async () => {
    const run = runCli(['tail', 'http://127.0.0.1:9/api', 'run-1', '--raw']);
    expect(await run.exit).toBe(EXIT_CODES.usage);
    expect(run.stderr()).toContain('--raw goes with tail --text');
  });
});

describe('runlight sends --header values to the base URL’s origin only', () => {
  /** A run behind an API-key policy, served under /api; /moved/… and /away/… redirect. */
  async function front(other: string) {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const hub = new RunEventHub();
    const runtime = createAgentRuntime({ store, events: hub, owner: 'worker-a', onLog: () => {} });
    const listener = toNodeListener(
      createRunRouter({
        handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
        multiplex: createMultiplexHandlers({ store, runtime, heartbeatMs: 200 }),
        basePath: '/api',
        authorize: ({ request }) => request.headers.get('x-api-key') === 'k-123',
      }),
    );
    const { origin } = await servers.listen((request, response) => {
      const url = request.url ?? '/';
      if (url.startsWith('/moved/')) {
        response.writeHead(307, { location: url.slice('/moved'.length) }).end();
      } else if (url.startsWith('/away/')) {
        response.writeHead(302, { location: `${other}${url.slice('/away'.length)}` }).end();
      } else listener(request, response);
    });
    await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Done.' }]),
      messages: user('Hi'),
    }).done;
    return origin;
  }

  it('follows a redirect within the origin with the headers; never one to another origin', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const { origin: other } = await servers.listen((request, response) => {
      seen.push(request.headers);
      response.writeHead(404).end();
    });
    const origin = await front(other);
    const headers = [
      '-H',
      'X-Api-Key: k-123',
      '-H',
      'Cookie: session=s3cret',
      '-H',
      'Authorization: Bearer t0ken',
    ];

    const moved = runCli(['tail', `${origin}/moved/api`, 'run-1', ...headers]);
    expect(await moved.exit).toBe(0);
    expect(moved.lines().at(-1)).toMatch(/ {2}Completed$/);

    for (const command of ['tail', 'runs', 'history']) {
      const away = runCli([command, `${origin}/away/api`, 'run-1', ...headers, '--wait', '0.3']);
      expect(await away.exit).toBe(EXIT_CODES.unreadable);
      expect(away.stderr()).toContain(
        `runlight: ${origin} redirects to ${other}, another origin: not followed`,
      );
      expect(away.stdout() + away.stderr()).not.toMatch(/k-123|s3cret|t0ken/);
    }
    // Nothing went there at all: no key, no cookie, no bearer token.
    expect(seen).toEqual([]);
  });
});
