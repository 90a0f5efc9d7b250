import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverLabel, serverUnavailable } from './test-databases';

const SOAK = fileURLToPath(new URL('../../soak/deployment/soak-deployment.ts', import.meta.url));

/**
 * The small run of `pnpm soak:deployment` (every fault once, 4 runs a wave): a runner and two
 * gateways in their own processes on the real server, through a proxy the soak cuts and
 * refuses. Its own output says which invariant broke.
 */
describe.runIf(serverUnavailable === null)(`the deployment soak on the ${serverLabel}`, () => {
  it('survives every fault with no violation', { timeout: 600_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SOAK, '--size', 'small'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, tail: output.split('\n').slice(-40).join('\n') }).toMatchObject({ code: 0 });
  });
});
