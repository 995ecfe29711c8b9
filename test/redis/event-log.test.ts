import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cached } from '../../src/adapters/index.js'
import { createAgent } from '../../src/index.js'
import type { ResearchEvent } from '../../src/index.js'
import { createEventLog } from '../../src/redis/event-log.js'
import { redisEventLog, redisStore } from '../../src/redis/index.js'
import { fromSSE, pipeSSE } from '../../src/streams/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

const SCRIPT = ['Action: Search\nQuery: why is the sky blue', 'Air scatters blue light most.', 'Action: Answer', 'Because air scatters blue light most.']
const CORPUS = [{ title: 'Sky', url: 'https://sky.example/', snippet: 'The sky is blue because air scatters blue light most.' }]

/** One scripted run's events, as a worker would append them. */
async function scriptedRun(): Promise<ResearchEvent[]> {
  const agent = createAgent({ llm: scriptedLLM({ replies: SCRIPT }), search: mockSearch({ corpus: CORPUS }) })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('Why is the sky blue?')) events.push(event)
  return events
}

async function collect(iterable: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const out: ResearchEvent[] = []
  for await (const event of iterable) out.push(event)
  return out
}

describe.skipIf(!redisAvailable())('the Redis event log', () => {
  let server: RedisServer
  let redis: Redis

  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null })
  })
  afterAll(async () => {
    redis?.disconnect()
    await server?.close()
  })

  it('replays a finished run whole, in order, and stops at run-end', async () => {
    const log = redisEventLog(redis)
    const events = await scriptedRun()
    for (const event of events) await log.append(event)
    const read = await collect(log.read(events[0]!.runId))
    expect(read).toEqual(events)
    assertEventInvariants(read)
    expect(await log.history(events[0]!.runId)).toEqual(events)
  })

  it('replays from after a seq, then follows events appended while it waits', async () => {
    const log = redisEventLog(redis)
    const events = await scriptedRun()
    const runId = events[0]!.runId
    for (const event of events.slice(0, 4)) await log.append(event)
    const reading = collect(log.read(runId, { after: 1 }))
    // The reader is blocked on XREAD for the rest; each append wakes it.
    for (const event of events.slice(4)) await log.append(event)
    expect(await reading).toEqual(events.slice(2))
  })

  it('waits for a run that has not started yet', async () => {
    const log = redisEventLog(redis)
    const events = await scriptedRun()
    const reading = collect(log.read(events[0]!.runId))
    for (const event of events) await log.append(event)
    expect(await reading).toEqual(events)
  })

  it('refuses another event with a logged seq, so the log never holds a duplicate, and takes a retried append once', async () => {
    const log = redisEventLog(redis)
    const [first, second] = await scriptedRun()
    await log.append(first!)
    await log.append(second!)
    await expect(log.append({ ...second!, time: second!.time + 1 })).rejects.toMatchObject({ code: 'conflict' })
    await expect(log.append({ ...first!, time: first!.time + 1 })).rejects.toMatchObject({ code: 'conflict' })
    // The very same event again is a retried append that already landed: done once, no error.
    await log.append(second!)
    expect((await log.history(first!.runId)).map((e) => e.seq)).toEqual([0, 1])
  })

  it('fences off an attempt that no longer owns the run: a worker thought dead cannot interleave events', async () => {
    const log = createEventLog(redis)
    const [first, second, third] = await scriptedRun()
    const owner = `laconic:run:{${first!.runId}}:owner`
    await redis.set(owner, 'attempt-1')
    await log.appendFenced(first!, 'attempt-1')
    await redis.set(owner, 'attempt-2') // another worker took the job over
    await expect(log.appendFenced(second!, 'attempt-1')).rejects.toMatchObject({ code: 'fenced' })
    await log.appendFenced(second!, 'attempt-2')
    await log.appendFenced(third!, 'attempt-2')
    expect((await log.history(first!.runId)).map((e) => e.seq)).toEqual([0, 1, 2])
  })

  it('keeps a live stream for idleTtlSeconds and an ended one for ttlSeconds', async () => {
    const log = redisEventLog(redis, { ttlSeconds: 60, idleTtlSeconds: 5000 })
    const events = await scriptedRun()
    const key = `laconic:run:{${events[0]!.runId}}:events`
    await log.append(events[0]!)
    expect(await redis.ttl(key)).toBeGreaterThan(60)
    for (const event of events.slice(1)) await log.append(event)
    const ttl = await redis.ttl(key)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60)
  })

  it('abort stops a reader blocked on a run that never comes', async () => {
    const log = redisEventLog(redis)
    const reader = log.read('never-started')
    const reading = collect(reader)
    reader.abort()
    await expect(reading).resolves.toEqual([])
    const controller = new AbortController()
    const bySignal = collect(log.read('never-started', { signal: controller.signal }))
    controller.abort()
    await expect(bySignal).resolves.toEqual([])
  })

  it('skips entries that are not events instead of failing the reader', async () => {
    const log = redisEventLog(redis)
    const events = await scriptedRun()
    const runId = events[0]!.runId
    await log.append(events[0]!)
    await redis.xadd(`laconic:run:{${runId}}:events`, '1-0', 'e', '{not json')
    for (const event of events.slice(1)) await log.append(event)
    expect(await collect(log.read(runId))).toEqual(events)
  })

  it('streams as SSE from any node and resumes after Last-Event-ID', async () => {
    const log = redisEventLog(redis)
    const events = await scriptedRun()
    const runId = events[0]!.runId
    const http: Server = createServer((req, res) => {
      const last = req.headers['last-event-id']
      const after = typeof last === 'string' && /^\d+$/.test(last) ? Number(last) : undefined
      void pipeSSE(log.read(runId, { after }), res, { heartbeatMs: 0 })
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`
      const half = Math.floor(events.length / 2)
      for (const event of events.slice(0, half)) await log.append(event)
      const first = await fetch(url)
      const seen: ResearchEvent[] = []
      for await (const event of fromSSE(first.body!)) {
        seen.push(event)
        if (event.seq === half - 1) break
      }
      for (const event of events.slice(half)) await log.append(event)
      const resumed = await fetch(url, { headers: { 'last-event-id': String(seen.at(-1)!.seq) } })
      for await (const event of fromSSE(resumed.body!)) seen.push(event)
      expect(seen).toEqual(events)
    } finally {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }
  })
})

describe.skipIf(!redisAvailable())('redisStore', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.port, '127.0.0.1')
  })
  afterAll(async () => {
    redis?.disconnect()
    await server?.close()
  })

  it('shares cached search results between two processes’ worth of clients', async () => {
    const first = mockSearch({ corpus: CORPUS })
    const second = mockSearch({ corpus: CORPUS })
    const other = new Redis(server.port, '127.0.0.1')
    try {
      const a = cached(first, { store: redisStore(redis) })
      const b = cached(second, { store: redisStore(other) })
      const results = await a.search('sky blue')
      // The second client gets the first one's results from Redis, marked as served by the cache.
      expect(await b.search('sky blue')).toEqual(results.map((result) => ({ ...result, cached: true })))
      expect([first.calls.length, second.calls.length]).toEqual([1, 0])
    } finally {
      other.disconnect()
    }
  })

  it('stores with the ttl as a Redis expiry and reads bad JSON as a miss', async () => {
    const store = redisStore(redis, { prefix: 'test:' })
    await store.set('k', { a: 1 }, 90_000)
    expect(await store.get('k')).toEqual({ a: 1 })
    const pttl = await redis.pttl('test:k')
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(90_000)
    await redis.set('test:bad', '{oops')
    expect(await store.get('bad')).toBeUndefined()
    expect(await store.get('missing')).toBeUndefined()
  })
})
