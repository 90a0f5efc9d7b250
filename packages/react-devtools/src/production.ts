'use client';

export { LazyRunlightDevtools as RunlightDevtools } from './lazy-devtools';
export type { DevtoolsPosition, RunlightDevtoolsProps } from './shell/devtools-props';
