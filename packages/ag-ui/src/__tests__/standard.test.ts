import type { BaseEvent, Message } from '@ag-ui/core';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunlightAgent } from '../client/runlight-agent';
import { parseInterruptId } from '../mapping/interrupt-id';
import {
  type AgUiServer,
  checkStandard,
  EventType,
  readFrames,
  serveAgUi,
  typesOf,
} from './ag-ui-server';

let server: AgUiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const pay = tool({
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => ({ paid: amount }),
});

const input = (threadId = 'thread-1') => ({
  threadId,
  runId: 'client-run-1',
  messages: [{ id: 'user-1', role: 'user', content: 'Pay 5' }] as Message[],
  tools: [],
  context: [],
});

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });

/** A run: reasoning and text, a tool call that needs approval, then text after it. */
function approvalRun() {
  return {
    model: scriptedModel([
      {
        reasoning: 'Paying needs approval.',
        text: 'Paying now.',
        toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
      },
      { text: 'Done: paid 5.' },
    ]),
    tools: { pay },
    toolApproval: { pay: 'user-approval' as const },
    stopWhen: isStepCount(5),
  };
}

describe('the AG-UI stream of a Runlight run passes the standard', () => {
  it('start → interrupt → resume → finished: every event parses and the sequence verifies', async () => {
    server = await serveAgUi(approvalRun);
    const first = await post(server.url, input());
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await readFrames(first);
    const events = frames.map((frame) => frame.event);
    await checkStandard(events);
    // Every message carries the run's cursor as its SSE id.
    for (const frame of frames) expect(frame.id).toMatch(/^\d+(:\d+:\d+)?$/);

    const types = typesOf(events);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types).toContain(EventType.ACTIVITY_SNAPSHOT);
    expect(types).toContain(EventType.STEP_STARTED);
    expect(types).toContain(EventType.REASONING_MESSAGE_START);
    expect(types).toContain(EventType.TEXT_MESSAGE_CONTENT);
    expect(types).toContain(EventType.TOOL_CALL_START);
    expect(types).toContain(EventType.TOOL_CALL_ARGS);
    const finished = events.at(-1) as BaseEvent & {
      outcome?: { type: string; interrupts: { id: string; toolCallId: string }[] };
    };
    expect(finished.type).toBe(EventType.RUN_FINISHED);
    expect(finished.outcome?.type).toBe('interrupt');
    const interrupt = finished.outcome!.interrupts[0]!;
    const runId = (events[0] as BaseEvent & { runId: string }).runId;
    expect(parseInterruptId(interrupt.id)?.runId).toBe(runId);

    const resumed = await post(server.url, {
      ...input(),
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(resumed.status).toBe(200);
    const after = (await readFrames(resumed)).map((frame) => frame.event);
    await checkStandard(after);
    expect(typesOf(after).slice(0, 2)).toEqual([
      EventType.RUN_STARTED,
      EventType.MESSAGES_SNAPSHOT,
    ]);
    expect(typesOf(after)).toContain(EventType.TOOL_CALL_RESULT);
    const end = after.at(-1) as BaseEvent & { outcome?: unknown };
    expect(end.type).toBe(EventType.RUN_FINISHED);
    expect(end.outcome).toBeUndefined();
    // The answer was recorded once: answering again is refused, never re-applied.
    const again = await post(server.url, {
      ...input(),
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(again.status).toBe(409);
  });

  it('a provider failure is RUN_ERROR with the failure code, never the provider text', async () => {
    server = await serveAgUi(() => ({
      model: scriptedModel([{ error: { at: 'request', message: 'secret sk-123 upstream text' } }]),
      maxRetries: 0,
    }));
    const frames = await readFrames(await post(server.url, input()));
    const events = frames.map((frame) => frame.event);
    await checkStandard(events);
    const end = events.at(-1) as BaseEvent & { code?: string; message?: string };
    expect(end.type).toBe(EventType.RUN_ERROR);
    expect(end.code).toBe('provider_failure');
    expect(JSON.stringify(events)).not.toContain('sk-123');
  });

  it('RunlightAgent runs, answers the interrupt through resume, and holds the conversation', async () => {
    server = await serveAgUi(approvalRun);
    const agent = new RunlightAgent({ url: server.url, threadId: 'thread-2' });
    const failures: string[] = [];
    agent.subscribe({ onRunFailed: ({ error }) => void failures.push(error.message) });
    agent.addMessage({ id: 'user-1', role: 'user', content: 'Pay 5' });
    await agent.runAgent();
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = agent.pendingInterrupts;
    await agent.runAgent({
      resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(failures).toEqual([]);
    const roles = agent.messages.map((message) => message.role);
    expect(roles).toEqual([
      'user',
      'activity',
      'reasoning',
      'assistant',
      'assistant',
      'tool',
      'assistant',
    ]);
    const text = agent.messages.filter(
      (m) => m.role === 'assistant' && typeof m.content === 'string',
    );
    expect(text.map((m) => m.content)).toEqual(['Paying now.', 'Done: paid 5.']);
    const activity = agent.messages.find((m) => m.role === 'activity') as unknown as {
      content: { kind: string };
    };
    expect(activity.content.kind).toBe('completed');
  });

  it('connectAgent() before any run resolves with nothing, as a front end that connects on mount expects', async () => {
    // Port 9 (discard) answers nothing: a request would fail the connect.
    const agent = new RunlightAgent({ url: 'http://127.0.0.1:9/api/ag-ui', threadId: 'fresh' });
    const failures: string[] = [];
    agent.subscribe({ onRunFailed: ({ error }) => void failures.push(error.name) });
    const outcome = await agent.connectAgent().then(
      (result) => ({ resolved: result }),
      (error: unknown) => ({ rejected: error instanceof Error ? error.name : String(error) }),
    );
    // AGUIConnectNotImplementedError, which AbstractAgent (and CopilotKit's chat) treat as "start fresh".
    expect(outcome).toEqual({ resolved: { newMessages: [] } });
    expect(failures).toEqual([]);
    expect(agent.messages).toEqual([]);
  });

  it('refuses bad input with typed errors, and asks the policy before reading the body', async () => {
    const asked: string[] = [];
    server = await serveAgUi(approvalRun, {
      authorize: ({ action }) => {
        asked.push(action);
        return action !== 'start';
      },
    });
    // Not even a body: the policy refuses first.
    const refused = await fetch(server.url, { method: 'POST', body: 'not json at all' });
    expect(refused.status).toBe(403);
    expect(asked).toEqual(['start']);
    const badRun = await fetch(`${server.url}?runId=${encodeURIComponent('a/b')}`);
    expect(badRun.status).toBe(400);
    expect(((await badRun.json()) as { error: { code: string } }).error.code).toBe('bad_run_id');
    const missing = await fetch(`${server.url}?runId=run-nope`);
    expect(missing.status).toBe(404);
  });

  it('an open stream re-asks the policy: revoked access ends it with RUN_ERROR forbidden', async () => {
    let allowed = true;
    server = await serveAgUi(
      () => ({ model: scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]) }),
      { authorize: () => allowed, reauthorizeMs: 20 },
    );
    const response = await post(server.url, input());
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toContain('RUN_STARTED');
    allowed = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    const frames = await readFrames(new Response(text));
    const last = frames.at(-1)!.event as BaseEvent & { code?: string };
    expect(last.type).toBe(EventType.RUN_ERROR);
    expect(last.code).toBe('forbidden');
    await checkStandard(frames.map((frame) => frame.event));
  });

  it('a worker that goes silent turns the activity stalled at its lease expiry, with no event to tell', async () => {
    server = await serveAgUi(approvalRun);
    // A run acquired by a worker that then never writes again (its process froze).
    await server.store.createRun({ runId: 'run-silent' });
    const acquired = await server.store.acquireRun('run-silent', {
      owner: 'ghost',
      leaseMs: 2_000,
    });
    const response = await fetch(`${server.url}?runId=run-silent`);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"stalled"')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const frames = await readFrames(new Response(text));
    const snapshot = frames.find((frame) => frame.event.type === EventType.ACTIVITY_SNAPSHOT)!
      .event as BaseEvent & { content: { kind: string; since: string; leaseExpiresAt: string } };
    expect(snapshot.content.leaseExpiresAt).toBe(acquired.leaseExpiresAt);
    if (snapshot.content.kind === 'stalled') {
      // A machine so loaded that the stream opened after the expiry: shown stalled at once.
      expect(snapshot.content.since).toBe(acquired.leaseExpiresAt);
      return;
    }
    expect(snapshot.content.kind).toBe('working');
    const delta = frames.at(-1)!.event as BaseEvent & {
      patch: { path: string; value: unknown }[];
    };
    expect(delta.type).toBe(EventType.ACTIVITY_DELTA);
    expect(delta.patch).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/kind', value: 'stalled' },
        { op: 'replace', path: '/since', value: acquired.leaseExpiresAt },
        { op: 'replace', path: '/interrupted', value: 'working' },
      ]),
    );
  });

  it('a bad RunAgentInput is 400 bad_body', async () => {
    server = await serveAgUi(approvalRun);
    const response = await post(server.url, { threadId: 1 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('bad_body');
  });
});
