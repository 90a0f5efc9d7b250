export type { ConformanceTarget } from './driver-conformance';
export { describeDriverConformance } from './driver-conformance';
export { assistantMessage, compaction, manualClock, modelRequest, T0, T1, T2 } from './fixtures';
