import {
  type Authorize,
  createAgentRuntimeStore,
  createMemoryDriver,
  RunEventHub,
} from '@runlight/runtime';
import { sendThenRead } from '@runlight/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../scale-out/gateway';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const bearer: Authorize = ({ request }) =>
  request.headers.get('authorization') === 'Bearer good'
    ? true
    : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });

describe('startGateway: a refusal sent while a 50 MiB body still arrives reaches the client', () => {
  it('401 and 413 on the approvals route, every try', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    await store.createRun({ runId: 'run-1' });
    const gateway = await startGateway({ store, bus: new RunEventHub(), authorize: bearer });
    cleanups.push(() => gateway.close());
    const answers: (number | string)[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      answers.push(await sendThenRead(`${gateway.origin}/runs/run-1/approvals`));
      answers.push(await sendThenRead(`${gateway.origin}/runs/run-1/approvals`, { token: 'good' }));
    }
    expect(answers).toEqual([401, 413, 401, 413, 401, 413, 401, 413]);
  });
});
