// `laconic-research/redis`: scale out on Redis. Needs the optional peer dependencies `ioredis` and `bullmq`.
export { redisEventLog, type RedisEventLog, type RedisEventLogOptions, type ReadOptions, type EventLogReader } from './event-log.js'
export { redisStore, type RedisStoreOptions } from './store.js'
