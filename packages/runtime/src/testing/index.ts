export type { DriverFault, FaultyDriver } from './fault-driver';
export { faultyDriver, InjectedDriverError } from './fault-driver';
export { gatedModel } from './gated-model';
export type {
  ScriptedError,
  ScriptedModelOptions,
  ScriptedStep,
  ScriptedToolCall,
} from './scripted-model';
export { scriptedModel } from './scripted-model';
export type { LatencyOptions } from './with-latency';
export { seededRandom, withLatency } from './with-latency';
