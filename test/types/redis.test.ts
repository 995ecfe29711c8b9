/**
 * Type-level tests of the `laconic-research/redis` sub-path: the queue and its workers, the
 * event log, and the Redis checkpoint and cache stores. Imported as types only (no ioredis).
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { CheckpointStore, ResearchEvent, ResearchOptions, SessionStore } from '../../src/index.js'
import type {
  ResearchQueue,
  ResearchWorker,
  createResearchQueue,
  createResearchWorker,
  redisCheckpoints,
  redisEventLog,
  redisRuns,
  redisSessions,
  redisStore,
} from '../../src/redis/index.js'
import type { Worker } from 'bullmq'
import type { Redis, RedisOptions } from 'ioredis'
import type { RunHost } from '../../src/server/index.js'

type ReadOptions = NonNullable<Parameters<ReturnType<typeof redisEventLog>['read']>[1]>
type RunStatus = NonNullable<Awaited<ReturnType<RunHost['status']>>>
type SubmitOptions = NonNullable<Parameters<ResearchQueue['submit']>[1]>
type WorkerAgent = Exclude<Parameters<typeof createResearchWorker>[0]['agent'], (strategy: string | undefined) => unknown>

type EventLogReader = ReturnType<ReturnType<typeof redisEventLog>['read']>

type RedisCheckpointsOptions = NonNullable<Parameters<typeof redisCheckpoints>[1]>
type RedisEventLog = Awaited<ReturnType<typeof redisEventLog>>
type RedisEventLogOptions = NonNullable<Parameters<typeof redisEventLog>[1]>
type RedisRuns = Awaited<ReturnType<typeof redisRuns>>
type RedisRunsOptions = NonNullable<Parameters<typeof redisRuns>[0]>
type RedisSessionsOptions = NonNullable<Parameters<typeof redisSessions>[1]>
type RedisStoreOptions = NonNullable<Parameters<typeof redisStore>[1]>
type ResearchQueueOptions = NonNullable<Parameters<typeof createResearchQueue>[0]>
type ResearchWorkerOptions = NonNullable<Parameters<typeof createResearchWorker>[0]>

type QueuedResearchOptions = NonNullable<SubmitOptions['options']>
type ResearchEventsOptions = NonNullable<Parameters<ResearchQueue['researchEvents']>[1]>
/** What a queued job carries to its worker, as the worker's BullMQ `Worker` types it. */
type ResearchJobData = ResearchWorker['bullmq'] extends Worker<infer Data, infer _Result> ? Data : never

describe('queue and workers', () => {
  it('createResearchQueue submits, cancels and follows runs', () => {
    expectTypeOf<typeof createResearchQueue>().parameters.toEqualTypeOf<[options: ResearchQueueOptions]>()
    expectTypeOf<ReturnType<typeof createResearchQueue>>().toEqualTypeOf<ResearchQueue>()
    // A Redis URL, ioredis options, or a client to share.
    expectTypeOf<ResearchQueueOptions['connection']>().toEqualTypeOf<string | RedisOptions | Redis>()
    expectTypeOf<ResearchWorkerOptions['connection']>().toEqualTypeOf<ResearchQueueOptions['connection']>()
    expectTypeOf<ResearchQueue['submit']>().parameters.toEqualTypeOf<[question: string, options?: SubmitOptions]>()
    expectTypeOf<ResearchQueue['submit']>().returns.toEqualTypeOf<Promise<{ runId: string }>>()
    expectTypeOf<ResearchQueue['get']>().returns.toEqualTypeOf<Promise<RunStatus | undefined>>()
    expectTypeOf<ResearchQueue['researchEvents']>().parameters.toEqualTypeOf<[runId: string, options?: ResearchEventsOptions]>()
    expectTypeOf<ResearchEventsOptions['after']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<SubmitOptions['options']>().toEqualTypeOf<QueuedResearchOptions | undefined>()
    expectTypeOf<QueuedResearchOptions>().toEqualTypeOf<Pick<ResearchOptions, 'knowledge' | 'priorAnswers' | 'citations'>>()
    expectTypeOf<ResearchJobData['question']>().toEqualTypeOf<string>()
    expectTypeOf<ResearchJobData>().toEqualTypeOf<{ question: string; strategy?: string; options?: QueuedResearchOptions }>()
  })

  it('createResearchWorker runs jobs with an agent', () => {
    expectTypeOf<typeof createResearchWorker>().parameters.toEqualTypeOf<[options: ResearchWorkerOptions]>()
    expectTypeOf<ReturnType<typeof createResearchWorker>>().toEqualTypeOf<ResearchWorker>()
    expectTypeOf<ResearchWorkerOptions['agent']>().toEqualTypeOf<WorkerAgent | ((strategy: string | undefined) => WorkerAgent)>()
    expectTypeOf<ResearchWorker['running']>().toEqualTypeOf<number>()
    expectTypeOf<ResearchWorker['ready']>().returns.toEqualTypeOf<Promise<void>>()
  })

  it('redisRuns hosts runs for the research handler', () => {
    expectTypeOf<typeof redisRuns>().parameters.toEqualTypeOf<[options: RedisRunsOptions]>()
    expectTypeOf<ReturnType<typeof redisRuns>>().toEqualTypeOf<RedisRuns>()
    expectTypeOf<RedisRunsOptions>().toEqualTypeOf<ResearchQueueOptions>()
  })
})

describe('stores', () => {
  it('redisEventLog appends and reads back events', () => {
    expectTypeOf<typeof redisEventLog>().parameter(1).toEqualTypeOf<RedisEventLogOptions | undefined>()
    expectTypeOf<ReturnType<typeof redisEventLog>>().toEqualTypeOf<RedisEventLog>()
    expectTypeOf<RedisEventLog['append']>().parameters.toEqualTypeOf<[event: ResearchEvent]>()
    expectTypeOf<RedisEventLog['read']>().parameters.toEqualTypeOf<[runId: string, options?: ReadOptions]>()
    expectTypeOf<RedisEventLog['read']>().returns.toEqualTypeOf<EventLogReader>()
    expectTypeOf<EventLogReader>().toExtend<AsyncIterable<ResearchEvent>>()
    expectTypeOf<ReadOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>()
    expectTypeOf<RedisEventLogOptions['ttlSeconds']>().toEqualTypeOf<number | undefined>()
  })

  it('redisCheckpoints and redisStore are the core stores on Redis', () => {
    expectTypeOf<typeof redisCheckpoints>().parameter(1).toEqualTypeOf<RedisCheckpointsOptions | undefined>()
    expectTypeOf<ReturnType<typeof redisCheckpoints>>().toEqualTypeOf<CheckpointStore>()
    expectTypeOf<RedisCheckpointsOptions['prefix']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<typeof redisStore>().parameter(1).toEqualTypeOf<RedisStoreOptions | undefined>()
    expectTypeOf<RedisStoreOptions['prefix']>().toEqualTypeOf<string | undefined>()
  })

  it('redisSessions is the session store on Redis', () => {
    expectTypeOf<typeof redisSessions>().parameter(1).toEqualTypeOf<RedisSessionsOptions | undefined>()
    expectTypeOf<ReturnType<typeof redisSessions>>().toEqualTypeOf<SessionStore>()
    expectTypeOf<RedisSessionsOptions['maxAttempts']>().toEqualTypeOf<number | undefined>()
  })
})
