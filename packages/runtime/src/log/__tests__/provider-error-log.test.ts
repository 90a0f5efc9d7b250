import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { RuntimeLogEntry } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';

const SECRETS = {
  system: 'SYSTEM-PROMPT-SECRET-7',
  prompt: 'USER-PROMPT-SECRET-42',
  toolInput: 'TOOL-INPUT-SECRET-3',
  toolOutput: 'TOOL-OUTPUT-SECRET-9',
  apiKey: 'sk-API-KEY-SECRET-1',
  providerText: 'PROVIDER-ERROR-TEXT-SECRET-5',
  responseHeader: 'RESPONSE-HEADER-SECRET-8',
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A provider on loopback that always fails with `status`, echoing the request as real ones do
 * (in the error text, a header): everything a careless log could carry is a secret here.
 */
async function failingProvider(status: number) {
  let requests = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      requests++;
      response.writeHead(status, {
        'content-type': 'application/json',
        'retry-after-ms': '1',
        'x-echo': SECRETS.responseHeader,
      });
      response.end(
        JSON.stringify({
          error: { message: `${SECRETS.providerText}: you sent ${body}`, type: 'error' },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const provider = createOpenAICompatible({
    name: 'loopback',
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: SECRETS.apiKey,
  });
  return { model: provider.chatModel('model-x'), requests: () => requests };
}

/** What pino's error serialiser writes: every own property of every error, nested ones too. */
function serialiseLikePino(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof Error)) return item;
    const own: Record<string, unknown> = { type: item.constructor.name };
    for (const name of Object.getOwnPropertyNames(item)) {
      own[name] = (item as unknown as Record<string, unknown>)[name];
    }
    return { ...own, message: item.message, stack: item.stack };
  });
}

async function runAgainst(status: number, logRawErrors?: boolean) {
  const provider = await failingProvider(status);
  const lines: string[] = [];
  const entries: RuntimeLogEntry[] = [];
  const runtime = createAgentRuntime({
    store: createAgentRuntimeStore(createMemoryDriver()),
    onLog: (entry) => {
      entries.push(entry);
      lines.push(serialiseLikePino(entry));
    },
    ...(logRawErrors === undefined ? {} : { logRawErrors }),
  });
  const run = await runtime.startRun({
    runId: `run-${status}`,
    model: provider.model,
    system: SECRETS.system,
    messages: [
      { role: 'user', content: SECRETS.prompt },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'lookup',
            input: { q: SECRETS.toolInput },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-1',
            toolName: 'lookup',
            output: { type: 'text', value: SECRETS.toolOutput },
          },
        ],
      },
    ],
  }).done;
  return { run, log: lines.join('\n'), entries, requests: provider.requests() };
}

describe('the server log of a failing provider (real @ai-sdk/openai-compatible on loopback)', () => {
  it.each([401, 429, 500])(
    '%i: the log names kind, status, retryable, provider and model — no prompt, body or header',
    async (status) => {
      const { run, log, entries, requests } = await runAgainst(status);
      expect(run.status).toBe('failed');
      // 429 and 500 are retried by the SDK (3 attempts); 401 is not.
      expect(requests).toBe(status === 401 ? 1 : 3);
      for (const secret of Object.values(SECRETS)) expect(log).not.toContain(secret);
      // Every entry of the execution names the provider and model; every error is redacted.
      for (const entry of entries) {
        expect(entry).toMatchObject({ provider: 'loopback.chat', model: 'model-x' });
      }
      const failure = entries.find((entry) => entry.level === 'error' && entry.error !== undefined);
      expect(failure).toMatchObject({
        runId: `run-${status}`,
        provider: 'loopback.chat',
        model: 'model-x',
      });
      const error = failure!.error as {
        kind: string;
        status?: number;
        retryable?: boolean;
        cause?: unknown;
      };
      if (status === 401) {
        expect(error).toEqual({ kind: 'AI_APICallError', status: 401, retryable: false });
      } else {
        expect(error).toEqual({
          kind: 'AI_RetryError',
          reason: 'maxRetriesExceeded',
          attempts: 3,
          cause: { kind: 'AI_APICallError', status, retryable: true },
        });
      }
    },
  );

  it('passes the raw error only behind the documented opt-in (logRawErrors)', async () => {
    const { log } = await runAgainst(401, true);
    // The very leak the default prevents: the provider error carries the prompt.
    expect(log).toContain(SECRETS.prompt);
    expect(log).toContain(SECRETS.system);
  });
});
