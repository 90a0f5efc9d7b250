'use client';

import type { ComponentType } from 'react';
import { LazyRunlightDevtools } from './lazy-devtools';
import type { RunlightDevtoolsProps } from './shell/devtools-props';

export type { DevtoolsPosition, RunlightDevtoolsProps } from './shell/devtools-props';

declare const process: { env: { NODE_ENV?: string } };

/**
 * The Runlight devtools: a floating button that opens a panel listing every run of the client
 * (the `client` prop, or the nearest `RunlightProvider`'s) — activity, connection, lease,
 * operation, approvals, the waterfall, the durable event log and time travel over it.
 *
 * Only in development: unless the bundler's `process.env.NODE_ENV` is `'development'`, this
 * is a component that renders nothing, and the panel is not in the bundle at all. To ship it in
 * production, import it from `@runlight/react-devtools/production` (loaded lazily).
 *
 * @example
 * <RunlightProvider client={client}>
 *   <App />
 *   <RunlightDevtools />
 * </RunlightProvider>
 */
export const RunlightDevtools: ComponentType<RunlightDevtoolsProps> =
  process.env.NODE_ENV !== 'development' ? () => null : LazyRunlightDevtools;
