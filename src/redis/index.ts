// `laconic-research/redis`: scale out on Redis. Needs the optional peer dependencies `ioredis` and `bullmq`.
// Options are each factory's first parameter; what a factory returns is `ReturnType<typeof f>`.
export { EventLogError } from './redis-errors.js'
export { redisEventLog } from './event-log.js'
export { redisStore } from './redis-cache-store.js'
export { createResearchQueue, type ResearchQueue } from './queue.js'
export { createResearchWorker, type ResearchWorker } from './worker.js'
export { redisCheckpoints } from './checkpoints.js'
export { redisRuns } from './redis-runs.js'
export { redisSessions } from './sessions.js'
