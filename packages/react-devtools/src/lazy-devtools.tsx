import { type ComponentType, createElement, lazy, Suspense } from 'react';
import type { RunlightDevtoolsProps } from './shell/devtools-props';
import { useDevtoolsClient } from './shell/use-devtools-client';

/** The panel's own chunk, fetched the first time the devtools render. */
const Panel: ComponentType<RunlightDevtoolsProps> = /* @__PURE__ */ lazy(() =>
  import('./shell/runlight-devtools-panel').then((module) => ({
    default: module.RunlightDevtoolsPanel,
  })),
);

/**
 * The devtools, loaded lazily: recording starts at once (the client's stores keep their
 * durable logs from this render on), the panel shows once its chunk arrived.
 */
export function LazyRunlightDevtools(props: RunlightDevtoolsProps) {
  useDevtoolsClient(props.client);
  return createElement(Suspense, { fallback: null }, createElement(Panel, props));
}
