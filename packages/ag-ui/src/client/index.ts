export type { RunlightAgentConfig } from './runlight-agent';
export { RunlightAgent } from './runlight-agent';
