/**
 * `@runlight/runtime/test-kit`: the conformance suites a store driver or an event bus author
 * runs under Vitest (a peer dependency) — `describeDriverConformance`, `describeBusConformance`,
 * `describeRunRecovery` — with the fixtures they drive them with (`kit-fixtures.ts`; nothing
 * from the workspace's private packages), and the loopback run server the workspace's client
 * tests use. It lives in the runtime package because it drives the runtime.
 *
 * @example
 * import { describeDriverConformance } from '@runlight/runtime/test-kit';
 * describeDriverConformance('my driver', async () => ({ driver: myDriver(), corrupt, corruptEvent }));
 */
export type {
  BusConformanceOptions,
  BusConformanceTarget,
  ConformanceBus,
} from './bus-conformance';
export { describeBusConformance } from './bus-conformance';
export { busDelta, busLabel, followBus, startBusRun } from './bus-fixtures';
export type { ConformanceContext, ConformanceTarget } from './conformance-context';
export type { WriteCounts } from './counting-driver';
export { countingDriver, measureLongAnswer, wordTokens } from './counting-driver';
export { describeDriverConformance } from './driver-conformance';
export { assistantMessage, listenOnLoopback, manualClock, modelRequest } from './kit-fixtures';
export type { RecoveryTarget } from './recovery-conformance';
export { describeRunRecovery } from './recovery-conformance';
export type { RunServer, RunServerOptions } from './run-server';
export { publicRunOf, serveRunHandlers } from './run-server';
