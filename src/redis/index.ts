// `laconic-research/redis`: scale out on Redis. Needs the optional peer dependencies `ioredis` and `bullmq`.
export { EventLogError, type EventLogRefusal } from './redis-errors.js'
export { redisEventLog, type RedisEventLog, type RedisEventLogOptions, type ReadOptions, type EventLogReader } from './event-log.js'
export { redisStore, type RedisStoreOptions } from './redis-cache-store.js'
export {
  createResearchQueue,
  type ResearchQueue,
  type ResearchQueueOptions,
  type SubmitOptions,
  type RunStatus,
  type RunState,
  type QueuedResearchOptions,
  type ResearchEventsOptions,
  type ResearchJobData,
} from './queue.js'
export { createResearchWorker, type ResearchWorker, type ResearchWorkerOptions, type WorkerAgent } from './worker.js'
export type { RedisConnection } from './redis-connection.js'
export { redisCheckpoints, type RedisCheckpointsOptions } from './checkpoints.js'
export { redisRuns, type RedisRuns, type RedisRunsOptions } from './redis-runs.js'
export { redisSessions, type RedisSessionsOptions } from './sessions.js'
