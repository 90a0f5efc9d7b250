import { createRunlightClient, type RunlightClient } from '@runlight/client';
import type { RunSnapshot } from '@runlight/protocol';
import { RunlightProvider as ReactProvider, RunStatus as ReactRunStatus } from '@runlight/react';
import { approvalMessage, at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { createRunlight, RunStatus as VueRunStatus } from '@runlight/vue';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup as cleanupReact, render as renderReact } from '@testing-library/react';
import { cleanup as cleanupSvelte, render as renderSvelte } from '@testing-library/svelte';
import { cleanup as cleanupVue, render as renderVue } from '@testing-library/vue';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { h } from 'vue';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server.js';
import { createRunlightContext } from '../context/runlight-context.svelte.js';
import SvelteRunStatus from '../status/RunStatus.svelte';
import { advance, settle, useFakeClock } from './harness.js';

afterEach(() => {
  cleanupReact();
  cleanupVue();
  cleanupSvelte();
  vi.useRealTimers();
});

/** A server each renderer's client talks to, that the test takes down and brings back. */
function killableServer(answer: RunSnapshot | null) {
  const server = fakeRunServer(answer === null ? { status: 500 } : { json: answer });
  let down = answer === null;
  const fetch: typeof globalThis.fetch = (input, init) =>
    down ? Promise.reject(new TypeError('fetch failed')) : server.fetch(input, init);
  const client: RunlightClient = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch,
    random: () => 0,
  });
  return {
    client,
    kill() {
      down = true;
      if (server.openStreams() > 0) server.end();
    },
    revive(next: RunSnapshot) {
      server.setSnapshot({ json: next });
      down = false;
      client.retry();
    },
  };
}

/** Tag, sorted attributes and text of an element: what a user and a screen reader get. */
type Shape = string | { tag: string; attributes: string[]; children: Shape[] };
function shape(element: Element): Shape {
  const attributes = element
    .getAttributeNames()
    .sort()
    .map((name) =>
      name === 'style'
        ? `${name}=${(element as HTMLElement).style.cssText}`
        : `${name}=${element.getAttribute(name)}`,
    );
  const children: Shape[] = [];
  for (const node of element.childNodes) {
    if (node.nodeType === node.TEXT_NODE) {
      const text = node.textContent ?? '';
      if (text === '') continue;
      const last = children.at(-1);
      if (typeof last === 'string') children[children.length - 1] = last + text;
      else children.push(text);
    } else if (node.nodeType === node.ELEMENT_NODE) {
      children.push(shape(node as Element));
    }
  }
  return { tag: element.tagName.toLowerCase(), attributes, children };
}

/** The same run state in React, Vue and Svelte, each on its own client and server. */
function renderAll(answer: RunSnapshot | null) {
  const react = killableServer(answer);
  const vue = killableServer(answer);
  const svelte = killableServer(answer);
  const props = { runId: RUN_ID };
  const reactView = renderReact(
    createElement(
      ReactProvider,
      {
        client: react.client,
        queryClient: new QueryClient({ defaultOptions: { queries: { retry: false } } }),
      },
      createElement(ReactRunStatus, props),
    ),
  );
  const vueView = renderVue(
    { render: () => h(VueRunStatus, props) },
    { global: { plugins: [createRunlight({ client: vue.client })] } },
  );
  const svelteView = renderSvelte(SvelteRunStatus, {
    props,
    context: createRunlightContext(svelte.client),
  });
  const servers = [react, vue, svelte];
  const region = (container: Element) => container.querySelector('[role="status"]')!;
  return {
    kill() {
      for (const server of servers) server.kill();
    },
    revive(next: RunSnapshot) {
      for (const server of servers) server.revive(next);
    },
    /** The three live regions; they must be alike, so one is returned with the check. */
    read() {
      const [fromReact, fromVue, fromSvelte] = [reactView, vueView, svelteView].map((view) =>
        region(view.container),
      );
      expect(shape(fromVue!)).toEqual(shape(fromReact!));
      expect(shape(fromSvelte!)).toEqual(shape(fromReact!));
      return fromReact!;
    },
  };
}

const part = (region: Element, name: string) =>
  region.querySelector(`[data-runlight-part="${name}"]`)?.textContent ?? null;

const waiting = snapshot(5, {
  lastOperation: modelRequestOperation('started', { startedAt: at(3) }),
});
const streaming = snapshot(5, {
  lastOperation: modelRequestOperation('first-output', { startedAt: at(3), firstOutputAt: at(8) }),
});
const awaiting = snapshot(
  5,
  { lastOperation: modelRequestOperation('completed', { endedAt: at(6) }) },
  { revision: 4, message: approvalMessage },
);

/**
 * One table, three renderers: a run's status at T0+10 s, then the server gone. The time the run
 * shows stops at the last answer (T0+10 s) and stays there however long the server is away.
 */
const CASES = [
  { name: 'waiting for the model', answer: waiting, before: 'Waiting for the model', ms: '7.0 s' },
  { name: 'streaming', answer: streaming, before: 'Writing the answer', ms: '2.0 s' },
  { name: 'awaiting approval', answer: awaiting, before: 'Waiting for your approval', ms: '4.0 s' },
];

describe('an unreachable server in React, Vue and Svelte RunStatus (issue 45.4)', () => {
  it.each(CASES)(
    '$name: "Cannot reach the server", the run as last known with its time stopped, then the run again',
    async ({ answer, before, ms }) => {
      useFakeClock(at(10));
      const view = renderAll(answer);
      await act(() => settle());
      let region = view.read();
      expect(part(region, 'label')).toBe(before);
      expect(region.getAttribute('aria-live')).toBe('polite');

      view.kill();
      await act(() => advance(3_000));
      region = view.read();
      expect(region.getAttribute('data-connection')).toBe('unreachable');
      expect(part(region, 'label')).toBe('Cannot reach the server');
      expect(part(region, 'detail')).toBe(`Last known: ${before}`);
      expect(part(region, 'elapsed')).toBe(ms);
      // Not a spinner: nothing is known to be in progress.
      expect(region.querySelector('[data-runlight="indicator"]')?.hasAttribute('data-busy')).toBe(
        false,
      );
      await act(() => advance(30_000));
      region = view.read();
      expect(part(region, 'elapsed')).toBe(ms);
      expect(part(region, 'detail')).toBe(`Last known: ${before}`);

      view.revive(answer);
      await act(() => advance(1_000));
      region = view.read();
      expect(region.hasAttribute('data-connection')).toBe(false);
      expect(part(region, 'label')).toBe(before);
      expect(part(region, 'detail')).toBeNull();
    },
  );

  it('nothing loaded: "Cannot reach the server" once the first load failed, in all three', async () => {
    useFakeClock(at(10));
    const view = renderAll(null);
    // React's loads go through its query cache, which retries a failed load itself (1 + 2 + 4 s)
    // before the store hears of it.
    await act(() => advance(8_000));
    const region = view.read();
    expect(part(region, 'label')).toBe('Cannot reach the server');
    expect(region.getAttribute('data-load-failure')).toBe('unreachable');
  });
});
