/**
 * Svelte 5 bindings for Runlight.
 * The client's public names whole — what a run's state means (words, status times, timeline
 * rows), the observer every binding is built on, pending approvals — then this binding's own.
 * Nothing here is a second definition of a client name.
 */
export * from '@runlight/client';
export { loadRun } from './context/load-run.js';
export { RunlightProviderMissingError } from './context/provider-missing-error.js';
export { default as RunlightProvider } from './context/RunlightProvider.svelte';
export type {
  RunlightContextOptions,
  RunlightContextValue,
} from './context/runlight-context.svelte.js';
export {
  createRunlightContext,
  getRunlightContext,
  seedRun,
  setRunlightContext,
} from './context/runlight-context.svelte.js';
export type { UseElapsedOptions } from './elapsed/use-elapsed.svelte.js';
export { useCountdown, useElapsed } from './elapsed/use-elapsed.svelte.js';
export type { MaybeGetter } from './runes/maybe-getter.js';
export type { Current } from './runes/run-store-of.js';
export type { RunConnection, RunView, UseRunOptions } from './runes/use-run.js';
export {
  selectRunView,
  useRun,
  useRunActivity,
  useRunConnection,
  useRunOperation,
} from './runes/use-run.js';
export type { RunControlResult, RunControls } from './runes/use-run-controls.svelte.js';
export { useRunControls } from './runes/use-run-controls.svelte.js';
export { useRunHistory, useRunTimeline } from './runes/use-run-history.js';
export { default as RunStatus } from './status/RunStatus.svelte';
export { runlightStatusCss } from './status/status-css.js';
export type { UseRunStatusOptions } from './status/use-run-status.js';
export { useRunStatus } from './status/use-run-status.js';
