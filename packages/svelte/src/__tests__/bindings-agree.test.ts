import { RunlightProvider as ReactProvider, RunStatus as ReactRunStatus } from '@runlight/react';
import { at, RUN_ID } from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup as cleanupReact, render as renderReact } from '@testing-library/react';
import { cleanup as cleanupSvelte, render as renderSvelte } from '@testing-library/svelte';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
// React's status styles are not exported alone (`runlightCss` has the timeline's too).
import { runlightStatusCss as reactStatusCss } from '../../../react/src/provider/runlight-css.js';
import RunStatus from '../status/RunStatus.svelte';
import { runlightStatusCss } from '../status/status-css.js';
import { advance, harness, settle, useFakeClock } from './harness.js';
import { RUN_STATES } from './run-states.js';

afterEach(() => {
  cleanupReact();
  cleanupSvelte();
  vi.useRealTimers();
});

/**
 * What a user and a screen reader get from an element: its tag, every attribute (the style
 * as the browser parses it), and its text with adjacent text merged — comments (Svelte's
 * anchors) and empty text left out.
 */
type Shape = string | { tag: string; attributes: [string, string][]; children: Shape[] };
function shape(element: Element): Shape {
  const attributes = [...element.attributes]
    .map((attribute): [string, string] => [
      attribute.name,
      attribute.name === 'style' ? (element as HTMLElement).style.cssText : attribute.value,
    ])
    .sort(([a], [b]) => a.localeCompare(b));
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

async function both(state: (typeof RUN_STATES)[number]) {
  const react = harness(state.answer, { recovers: state.recovers ?? false });
  const svelte = harness(state.answer, { recovers: state.recovers ?? false });
  const props = { runId: RUN_ID, ...(state.labels ? { labels: state.labels } : {}) };
  const reactView = renderReact(
    createElement(
      ReactProvider,
      {
        client: react.client,
        queryClient: new QueryClient(),
        recovers: state.recovers ?? false,
      },
      createElement(ReactRunStatus, props),
    ),
  );
  const svelteView = renderSvelte(RunStatus, { props, context: svelte.context });
  await act(() => settle());
  const read = () => ({
    react: shape(reactView.container.querySelector('[role="status"]')!),
    svelte: shape(svelteView.container.querySelector('[role="status"]')!),
  });
  return { read };
}

describe('one vocabulary: React and Svelte RunStatus render the same run states alike', () => {
  it.each(RUN_STATES)('$name: the same text, roles and aria attributes', async (state) => {
    useFakeClock(at(10));
    const { read } = await both(state);
    const first = read();
    expect(first.svelte).toEqual(first.react);
    // Settled: the snapshot (or its refusal) arrived, and the region is a polite status.
    expect(first.react).toMatchObject({ tag: 'div' });
    const region = JSON.stringify(first.react);
    expect(region).toContain('["role","status"]');
    expect(region).toContain('["aria-live","polite"]');
    const loaded =
      !region.includes('["data-activity","loading"]') || region.includes('load-failure');
    expect(loaded, region).toBe(true);
    // 2.5 s later: the ticking time (or the countdown) moved the same way in both.
    await act(() => advance(2500));
    const later = read();
    expect(later.svelte).toEqual(later.react);
  });

  it('draws the status with the same default styles', () => {
    expect(runlightStatusCss).toBe(reactStatusCss);
  });
});
