/**
 * The workspace's test kit for drivers and runtimes (not published: `@runlight/runtime/test-kit`
 * resolves only under the workspace's `@runlight/source` condition). It lives in the runtime
 * package because it drives the runtime, so `@runlight/test-utils` (protocol fixtures, loopback
 * servers) depends on the protocol alone and no workspace package depends on itself in a cycle.
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
export type { RecoveryTarget } from './recovery-conformance';
export { describeRunRecovery } from './recovery-conformance';
export type { RunServer, RunServerOptions } from './run-server';
export { publicRunOf, serveRunHandlers } from './run-server';
