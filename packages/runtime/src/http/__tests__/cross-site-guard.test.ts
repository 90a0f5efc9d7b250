import { describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import type { AuthorizeInput } from '../access/authorize';
import type { RunCorsOptions } from '../access/cors';
import type { CrossSiteOptions } from '../access/cross-site-guard';
import { createChatStartRoute } from '../chat/create-chat-start-route';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';

const APP = 'http://app.test';

function serve(refuseCrossSite?: boolean | CrossSiteOptions, cors?: RunCorsOptions) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, onLog: () => {} });
  const asked: AuthorizeInput['action'][] = [];
  const authorize = ({ action }: AuthorizeInput) => {
    asked.push(action);
    return false; // refused by the policy: 403 forbidden (the guard's is 403 cross_site)
  };
  const router = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      start: () => new Response(null, { status: 204 }),
    }),
    basePath: '/api',
    authorize,
    ...(refuseCrossSite === undefined ? {} : { refuseCrossSite }),
    ...(cors ? { cors } : {}),
  });
  const chat = createChatStartRoute({
    runtime,
    store,
    authorize,
    run: () => ({ model: scriptedModel([{ text: 'x' }]) }),
    ...(refuseCrossSite === undefined ? {} : { refuseCrossSite }),
  });
  const send = async (
    path: string,
    headers: Record<string, string>,
    method = 'POST',
  ): Promise<string> => {
    const request = new Request(`${APP}${path}`, {
      method,
      headers: { host: 'app.test', 'content-type': 'application/json', ...headers },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    const response = path === '/api/chat' ? await chat(request) : await router(request);
    const body = (await response!.json().catch(() => null)) as { error?: { code: string } } | null;
    return `${response!.status} ${body?.error?.code ?? ''}`.trim();
  };
  return { send, asked };
}

const CROSS_SITE = '403 cross_site';
const POLICY = '403 forbidden';

describe('refuseCrossSite on the routes that change runs', () => {
  it.each([
    [
      'Sec-Fetch-Site: cross-site',
      { 'sec-fetch-site': 'cross-site', origin: 'http://evil.test' },
      CROSS_SITE,
    ],
    [
      'Sec-Fetch-Site: same-site',
      { 'sec-fetch-site': 'same-site', origin: 'http://x.app.test' },
      CROSS_SITE,
    ],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: APP }, POLICY],
    ['Sec-Fetch-Site: none (typed in the address bar)', { 'sec-fetch-site': 'none' }, POLICY],
    ['no Sec-Fetch-Site, Origin of another host', { origin: 'http://evil.test' }, CROSS_SITE],
    ['no Sec-Fetch-Site, Origin: null (sandboxed frame)', { origin: 'null' }, CROSS_SITE],
    ['no Sec-Fetch-Site, Origin of its own host', { origin: APP }, POLICY],
    ['neither header (curl, a server)', {}, POLICY],
  ])('%s', async (_, headers, expected) => {
    const f = serve(true);
    for (const path of [
      '/api/runs',
      '/api/runs/run-1/cancel',
      '/api/runs/run-1/approvals',
      '/api/chat',
    ]) {
      expect(`${path}: ${await f.send(path, headers)}`).toBe(`${path}: ${expected}`);
    }
    // A refused request never reached the policy.
    if (expected === CROSS_SITE) expect(f.asked).toEqual([]);
  });

  it('leaves reads alone: a cross-site GET is the policy’s to decide', async () => {
    const f = serve(true);
    const headers = { 'sec-fetch-site': 'cross-site', origin: 'http://evil.test' };
    expect(await f.send('/api/runs/run-1', headers, 'GET')).toBe(POLICY);
    expect(await f.send('/api/runs/run-1/operations', headers, 'GET')).toBe(POLICY);
  });

  it('trusts the origins it is told to, and the CORS origins (not "*")', async () => {
    const other = { 'sec-fetch-site': 'cross-site', origin: 'https://admin.test' };
    expect(await serve({ trustedOrigins: ['https://admin.test'] }).send('/api/runs', other)).toBe(
      POLICY,
    );
    expect(
      await serve({ trustedOrigins: (o) => o.endsWith('.admin.test') }).send('/api/runs', other),
    ).toBe(CROSS_SITE);
    expect(
      await serve(true, { origin: 'https://admin.test' }).send('/api/runs/run-1/cancel', other),
    ).toBe(POLICY);
    expect(await serve(true, { origin: '*' }).send('/api/runs/run-1/cancel', other)).toBe(
      CROSS_SITE,
    );
  });

  it('is off unless asked for (a bearer token is never sent by another site)', async () => {
    const f = serve();
    expect(await f.send('/api/runs/run-1/cancel', { 'sec-fetch-site': 'cross-site' })).toBe(POLICY);
  });
});
