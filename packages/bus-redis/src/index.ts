export { RedisBusTimeoutError } from './redis-bus-timeout-error';
export type { RedisEventBus, RedisEventBusOptions } from './redis-event-bus';
export { createRedisEventBus } from './redis-event-bus';
