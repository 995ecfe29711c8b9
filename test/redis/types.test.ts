import type { Redis } from 'ioredis'
import { describe, expectTypeOf, it } from 'vitest'
import type { CacheStore } from '../../src/adapters/index.js'
import type { CheckpointStore, ResearchEvent, ResearchResult } from '../../src/index.js'
import { createAgent } from '../../src/index.js'
import {
  createResearchQueue,
  createResearchWorker,
  redisCheckpoints,
  redisEventLog,
  redisRuns,
  redisStore,
  type ResearchQueue,
  type ResearchWorker,
} from '../../src/redis/index.js'
import type { RunHost } from '../../src/server/index.js'
import type { toSSE } from '../../src/streams/index.js'

type RunStatus = NonNullable<Awaited<ReturnType<RunHost['status']>>>
type ServedStatus = NonNullable<Awaited<ReturnType<RunHost['status']>>>

type EventLogReader = ReturnType<ReturnType<typeof redisEventLog>['read']>
type EventStream = Parameters<typeof toSSE>[0]

type RedisRuns = Awaited<ReturnType<typeof redisRuns>>
type RedisEventLog = Awaited<ReturnType<typeof redisEventLog>>
type RedisEventLogOptions = NonNullable<Parameters<typeof redisEventLog>[1]>

describe('laconic-research/redis types', () => {
  it('the log appends events and its readers are event streams pipeSSE accepts', () => {
    expectTypeOf(redisEventLog).parameter(0).toExtend<Redis>()
    expectTypeOf(redisEventLog).parameter(1).toEqualTypeOf<RedisEventLogOptions | undefined>()
    expectTypeOf<RedisEventLog['append']>().parameters.toEqualTypeOf<[ResearchEvent]>()
    expectTypeOf<EventLogReader>().toExtend<EventStream>()
    expectTypeOf<ReturnType<RedisEventLog['read']>>().toEqualTypeOf<EventLogReader>()
  })

  it("redisRuns is the research handler's run host on the queue, and its status is the one GET /runs/:id shows", () => {
    expectTypeOf(redisRuns).returns.toEqualTypeOf<RedisRuns>()
    expectTypeOf<RedisRuns>().toExtend<RunHost>()
    expectTypeOf<RedisRuns['close']>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<RunStatus>().toEqualTypeOf<ServedStatus>()
  })

  it('redisStore is a CacheStore and redisCheckpoints a CheckpointStore', () => {
    expectTypeOf(redisStore).returns.toEqualTypeOf<CacheStore>()
    expectTypeOf(redisCheckpoints).returns.toEqualTypeOf<CheckpointStore>()
  })

  it('the queue submits, cancels and reports; the worker takes an agent or a function of the strategy', () => {
    expectTypeOf(createResearchQueue).returns.toEqualTypeOf<ResearchQueue>()
    expectTypeOf<ResearchQueue['submit']>().returns.toEqualTypeOf<Promise<{ runId: string }>>()
    expectTypeOf<ResearchQueue['cancel']>().returns.toEqualTypeOf<Promise<boolean>>()
    expectTypeOf<ResearchQueue['get']>().returns.toEqualTypeOf<Promise<RunStatus | undefined>>()
    expectTypeOf<RunStatus['result']>().toEqualTypeOf<ResearchResult | undefined>()
    expectTypeOf<ReturnType<ResearchQueue['researchEvents']>>().toExtend<EventStream>()
    expectTypeOf(createResearchWorker).returns.toEqualTypeOf<ResearchWorker>()
    const agent = createAgent({ llm: { stream: async function* () {} } })
    expectTypeOf({ connection: 'redis://127.0.0.1:6379', agent }).toExtend<Parameters<typeof createResearchWorker>[0]>()
    expectTypeOf({ connection: 'redis://127.0.0.1:6379', agent: () => agent }).toExtend<Parameters<typeof createResearchWorker>[0]>()
  })
})
