export type { LatencyOptions } from './with-latency';
export { seededRandom, withLatency } from './with-latency';
