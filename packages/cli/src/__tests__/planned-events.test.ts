import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli, user, waitFor } from './harness';

/**
 * Issue 45 item 6: planned events in plain words. A graceful hand-off (a deploy's SIGTERM:
 * `runtime.close()`) is no stall and no crash's takeover, and an approval that another worker
 * resumes (a gateway's answer) is no takeover at all.
 */
const servers = loopbackServers();
afterEach(servers.closeAll);

/** Words of a tail line, without its timestamp and offset. */
const words = (line: string) => line.replace(/^\S+\s+\+\S+ (s|min \d+ s) {2}/, '');

async function deployment() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = (owner: string) =>
    createAgentRuntime({ store, events: hub, owner, checkpointEveryEvents: 4, onLog: () => {} });
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({ store, runtime: hub, heartbeatMs: 200 }),
      basePath: '/api',
      authorize: 'public',
    }),
  );
  const { origin } = await servers.listen(listener);
  return { store, runtime, api: `${origin}/api` };
}

describe('runlight tail: planned events', () => {
  it('a graceful hand-off reads as one: never a stall, never "Another worker took over"', async () => {
    const { store, runtime, api } = await deployment();
    const runId = 'run-hand-off';
    const a = runtime('worker-a');
    void a.startRun({
      runId,
      model: scriptedModel([{ tokenMs: 3, text: 'a '.repeat(300) }]),
      messages: user('Go'),
    });
    await waitFor(() => store.getRun(runId));
    const tail = runCli(['tail', api, runId, '--recovers']);
    await waitFor(() => expect(tail.stdout()).toContain('Writing the answer'));
    await a.close();
    await waitFor(() => expect(tail.stdout()).toContain('Handing over to another worker'));

    const b = runtime('worker-b');
    const recovered = b.recoverRun({
      runId,
      maxAttempts: 3,
      resolveRun: () => ({
        model: scriptedModel([{ tokenMs: 3, text: 'b '.repeat(10) }]),
        messages: user('Go'),
      }),
    });
    expect(await recovered.outcome).toMatchObject({ result: 'recovered' });
    expect(await tail.exit).toBe(0);
    const said = tail.lines().map(words);
    const handing = said.indexOf('Handing over to another worker');
    const continued = said.indexOf('Another worker continued the run');
    expect(handing).toBeGreaterThan(said.indexOf('Writing the answer'));
    expect(continued).toBeGreaterThan(handing);
    expect(said.at(-1)).toBe('Completed');
    for (const line of said) expect(line).not.toMatch(/stopped responding|took over/);
  });

  it.each([
    ['the same runner (a new acquisition: another holder tag)', 'worker-a'],
    ['another runner', 'worker-b'],
  ])(
    'an approval answered through a gateway and resumed by %s is no takeover',
    async (_, resumer) => {
      const { store, runtime, api } = await deployment();
      const runId = 'run-approval';
      const pay = tool({
        inputSchema: z.object({ amount: z.number() }),
        execute: async ({ amount }) => ({ paid: amount }),
      });
      const options = {
        runId,
        model: scriptedModel([
          { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
          { text: 'Paid.' },
        ]),
        messages: user('Pay 5'),
        tools: { pay },
        toolApproval: { pay: 'user-approval' as const },
        stopWhen: isStepCount(5),
      };
      const a = runtime('worker-a');
      await a.startRun(options).done;
      const tail = runCli(['tail', api, runId]);
      await waitFor(() => expect(tail.stdout()).toContain('Waiting for your approval'));
      const snapshot = await store.getSnapshot(runId);
      const part = snapshot.assistant!.message.parts.find((p) => p.type === 'tool-pay') as {
        approval: { id: string };
      };
      // The answer reached a runner through the gateway; that runner resumes the run.
      const b = resumer === 'worker-a' ? a : runtime(resumer);
      const run = await b.resumeRun({
        ...options,
        approvals: [{ approvalId: part.approval.id, approved: true }],
      }).done;
      expect(run).toMatchObject({ status: 'completed', owner: resumer });
      expect(await tail.exit).toBe(0);
      const said = tail.lines().map(words);
      expect(said.at(-1)).toBe('Completed');
      for (const line of said) expect(line).not.toMatch(/took over|continued the run/);
    },
  );
});
