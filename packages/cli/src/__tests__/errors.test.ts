import { createServer } from 'node:net';
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
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../exit-codes';
import { realServers, runCli, user } from './harness';

const serve = realServers();
const servers = loopbackServers();
afterEach(servers.closeAll);

/** The library's routes behind a bearer token, one run completed. */
async function guarded() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, owner: 'worker-a', onLog: () => {} });
  const authorize = ({ request }: { request: Request }) =>
    request.headers.get('authorization') === 'Bearer s3cret-token';
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
      multiplex: createMultiplexHandlers({ store, runtime, heartbeatMs: 200 }),
      basePath: '/api',
      authorize,
    }),
  );
  const { origin } = await servers.listen(listener);
  await runtime.startRun({
    runId: 'run-guarded',
    model: scriptedModel([{ text: 'Secret answer.' }]),
    messages: user('Hi'),
  }).done;
  return `${origin}/api`;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('runlight: a run that cannot be read exits 4', () => {
  it('--header sends credentials on every request; without them, access refused', async () => {
    const baseUrl = await guarded();
    const allowed = runCli([
      'history',
      baseUrl,
      'run-guarded',
      '-H',
      'Authorization: Bearer s3cret-token',
    ]);
    expect(await allowed.exit).toBe(0);
    const tail = runCli([
      'tail',
      baseUrl,
      'run-guarded',
      '--header',
      'authorization: Bearer s3cret-token',
    ]);
    expect(await tail.exit).toBe(0);
    expect(tail.lines().at(-1)).toMatch(/ {2}Completed$/);

    const refused = runCli(['tail', baseUrl, 'run-guarded', '-H', 'Authorization: Bearer wrong']);
    expect(await refused.exit).toBe(EXIT_CODES.unreadable);
    expect(refused.stderr()).toBe('runlight: Access to this run was refused (run run-guarded)\n');
    expect(refused.stdout()).toBe('');
    const json = runCli(['tail', baseUrl, 'run-guarded', '--json']);
    expect(await json.exit).toBe(EXIT_CODES.unreadable);
    expect(JSON.parse(json.stdout())).toEqual({
      type: 'error',
      runId: 'run-guarded',
      reason: 'access-refused',
      text: 'Access to this run was refused',
      exitCode: 4,
    });
    const runs = runCli(['runs', baseUrl, 'run-guarded', '-H', 'Authorization: Bearer wrong']);
    expect(await runs.exit).toBe(EXIT_CODES.unreadable);
    for (const run of [refused, json, runs]) {
      expect(run.stdout() + run.stderr()).not.toContain('wrong');
    }
  });

  it('a run that does not exist, past --wait: exit 4 with the status words', async () => {
    const server = await serve();
    const tail = runCli(['tail', server.baseUrl, 'no-such-run', '--wait', '0']);
    expect(await tail.exit).toBe(EXIT_CODES.unreadable);
    expect(tail.stderr()).toBe('runlight: This run does not exist (run no-such-run)\n');
    const history = runCli(['history', server.baseUrl, 'no-such-run', '--wait', '0']);
    expect(await history.exit).toBe(EXIT_CODES.unreadable);
    expect(history.stderr()).toBe('runlight: This run does not exist (run no-such-run)\n');
  });

  it('a run started after the tail: it waits for it (within --wait) and follows it', async () => {
    const server = await serve();
    const tail = runCli(['tail', server.baseUrl, 'run-later', '--wait', '20']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.runtime.startRun({
      runId: 'run-later',
      model: scriptedModel([{ text: 'Here now.' }]),
      messages: user('Hi'),
    }).done;
    expect(await tail.exit).toBe(0);
    expect(tail.lines()[0]).toMatch(/^-\s+Waiting for the run to start$/);
  });

  it('a server that does not answer, past --wait: exit 4', async () => {
    const port = await closedPort();
    const tail = runCli(['tail', `http://127.0.0.1:${port}/api`, 'run-1', '--wait', '0.3']);
    expect(await tail.exit).toBe(EXIT_CODES.unreadable);
    expect(tail.stderr()).toBe('runlight: The run status could not be loaded (run run-1)\n');
  });
});
