import { createRunlightClient, type RunlightClient } from '@runlight/client';
import {
  OperationIndicator as ReactOperationIndicator,
  RunlightProvider as ReactRunlightProvider,
  RunStatus as ReactRunStatus,
  runlightCss,
} from '@runlight/react';
import { at, RUN_ID } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { cleanup as cleanupReact, render as renderReact } from '@testing-library/react';
import { cleanup as cleanupVue, render as renderVue } from '@testing-library/vue';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { h } from 'vue';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import { advance, settle, useFakeClock } from '../../../react/src/__tests__/harness';
import { createRunlight, OperationIndicator, RunStatus, runlightStatusCss } from '../index';
import { normalized } from './normalized-dom';
import { RUN_STATES, type RunStateCase } from './run-states';

afterEach(() => {
  cleanupReact();
  cleanupVue();
  vi.useRealTimers();
});

function clientFor(state: RunStateCase): RunlightClient {
  const pending: typeof globalThis.fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
    });
  const server = state.answer === 'pending' ? null : fakeRunServer(state.answer);
  return createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: server?.fetch ?? pending,
    random: () => 0,
  });
}

/** React's RunStatus and OperationIndicator for `state`, as their live region and image. */
function renderWithReact(state: RunStateCase) {
  const props = {
    runId: RUN_ID,
    ...(state.labels === undefined ? {} : { labels: state.labels }),
  };
  const { container } = renderReact(
    createElement(
      ReactRunlightProvider,
      {
        client: clientFor(state),
        queryClient: new QueryClient({ defaultOptions: { queries: { retry: false } } }),
        recovers: state.recovers ?? false,
      },
      createElement(ReactRunStatus, props),
      createElement(ReactOperationIndicator, props),
    ),
  );
  return container;
}

function renderWithVue(state: RunStateCase) {
  const props = { runId: RUN_ID, ...(state.labels === undefined ? {} : { labels: state.labels }) };
  const runlight = createRunlight({ client: clientFor(state), recovers: state.recovers ?? false });
  const { container } = renderVue(
    { render: () => [h(RunStatus, props), h(OperationIndicator, props)] },
    { global: { plugins: [runlight] } },
  );
  return container;
}

const regions = (container: Element) => ({
  status: normalized(container.querySelector('[role="status"]')!),
  indicator: normalized(container.querySelector('[role="img"]')!),
});

describe('one set of words: React and Vue render the same run states alike', () => {
  it.each(RUN_STATES)('$name', async (state) => {
    useFakeClock(at(state.now));
    const react = renderWithReact(state);
    const vue = renderWithVue(state);
    await settle();
    // The React client's queries retry a refused load; both stores reach the same state.
    await advance(state.runMs ?? 1000);
    const fromReact = regions(react);
    const fromVue = regions(vue);
    expect(fromVue).toEqual(fromReact);
    // The case says something: a label in words, not an empty region.
    expect(react.querySelector('[data-runlight-part="label"]')?.textContent).toMatch(/\w/);
  });

  it('the retry countdown ticks alike, hidden from screen readers, the label announced once', async () => {
    const retry = RUN_STATES.find((state) => state.name.startsWith('the retry wait'))!;
    useFakeClock(at(retry.now));
    const react = renderWithReact(retry);
    const vue = renderWithVue(retry);
    await settle();
    const countdown = (container: Element) =>
      container.querySelector('[data-runlight-part="countdown"]');
    expect(countdown(vue)?.textContent).toBe('Retrying in 3 s (attempt 2 of 3)');
    expect(countdown(vue)?.getAttribute('aria-hidden')).toBe('true');
    await advance(1000);
    expect(countdown(vue)?.textContent).toBe('Retrying in 2 s (attempt 2 of 3)');
    expect(regions(vue)).toEqual(regions(react));
  });

  it('the elapsed time ticks alike on the server clock', async () => {
    const waiting = RUN_STATES.find((state) => state.name === 'waiting for the model')!;
    useFakeClock(at(waiting.now));
    const react = renderWithReact(waiting);
    const vue = renderWithVue(waiting);
    await settle();
    const elapsed = (container: Element) =>
      container.querySelector('[data-runlight-part="elapsed"]')?.textContent;
    expect(elapsed(vue)).toBe('2.4 s');
    await advance(1300);
    expect(elapsed(vue)).toBe('3.7 s');
    expect(elapsed(react)).toBe(elapsed(vue));
  });

  it('the default styles are the same string', () => {
    expect(runlightCss.startsWith(runlightStatusCss)).toBe(true);
  });
});
