export type { RedisOutageCounts } from './redis-bus-outage-error';
export { RedisBusOutageError } from './redis-bus-outage-error';
export { RedisBusTimeoutError } from './redis-bus-timeout-error';
export type { RedisEventBus, RedisEventBusOptions } from './redis-event-bus';
export { createRedisEventBus } from './redis-event-bus';
