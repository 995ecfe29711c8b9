import type { Redis } from 'ioredis'
import { describe, expectTypeOf, it } from 'vitest'
import type { CacheStore } from '../../src/adapters/cache/index.js'
import type { ResearchEvent } from '../../src/core/index.js'
import { redisEventLog, redisStore, type EventLogReader, type RedisEventLog, type RedisEventLogOptions } from '../../src/redis/index.js'
import type { EventStream } from '../../src/streams/index.js'

describe('laconic-research/redis types', () => {
  it('the log appends events and its readers are event streams pipeSSE accepts', () => {
    expectTypeOf(redisEventLog).parameter(0).toExtend<Redis>()
    expectTypeOf(redisEventLog).parameter(1).toEqualTypeOf<RedisEventLogOptions | undefined>()
    expectTypeOf<RedisEventLog['append']>().parameters.toEqualTypeOf<[ResearchEvent]>()
    expectTypeOf<EventLogReader>().toExtend<EventStream>()
    expectTypeOf<ReturnType<RedisEventLog['read']>>().toEqualTypeOf<EventLogReader>()
  })

  it('redisStore is a CacheStore', () => {
    expectTypeOf(redisStore).returns.toEqualTypeOf<CacheStore>()
  })
})
