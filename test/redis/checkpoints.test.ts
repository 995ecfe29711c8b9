import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, memoryCheckpoints } from '../../src/index.js'
import type { Checkpoint, ResearchEvent } from '../../src/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { SKY_ANSWER, SKY_QUESTION, skyAgent } from './fixtures/sky-agent.js'
import { redisCheckpoints } from '../../src/redis/index.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

describe.skipIf(!redisAvailable())('redisCheckpoints', () => {
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

  it('a run checkpointed in Redis resumes from it with another agent, repeating no search', async () => {
    const store = redisCheckpoints(redis)
    const first: ResearchEvent[] = []
    const run = skyAgent({ hangInAnswer: true }).research(SKY_QUESTION, { checkpoints: store })
    for await (const event of run) {
      first.push(event)
      if (event.type === 'answer-token') break // the process "dies" in its answer
    }
    const saved = (await store.load(run.runId)) as Checkpoint
    expect(saved).toMatchObject({ runId: run.runId, question: SKY_QUESTION, status: 'running' })
    const resumed: ResearchEvent[] = []
    for await (const event of skyAgent().resume(run.runId, { checkpoints: store })) resumed.push(event)
    expect(resumed[0]).toMatchObject({ type: 'run-start', seq: saved.seq, resumed: { cost: saved.cost } })
    expect(resumed.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: SKY_ANSWER })
    expect(resumed.filter((e) => e.type === 'query')).toEqual([])
    assertEventInvariants([...first.slice(0, saved.seq), ...resumed])
    expect((await store.load(run.runId))?.status).toBe('final')
  })

  it('keeps one checkpoint per run, replaced whole, and deletes it', async () => {
    const store = redisCheckpoints(redis, { prefix: 'cp:' })
    const memory = memoryCheckpoints()
    const run = createAgent({ llm: { stream: async function* () {} } }).research('q', { checkpoints: memory })
    await run.result
    const checkpoint = (await memory.load(run.runId)) as Checkpoint
    await store.save(checkpoint)
    await store.save({ ...checkpoint, knowledge: 'newer' })
    expect(await store.load(run.runId)).toEqual({ ...checkpoint, knowledge: 'newer' })
    expect(await redis.ttl(`cp:run:{${run.runId}}:checkpoint`)).toBeGreaterThan(0)
    await store.delete(run.runId)
    expect(await store.load(run.runId)).toBeUndefined()
  })

  it('a corrupt checkpoint is a config error naming the problem, and is left alone', async () => {
    const store = redisCheckpoints(redis, { prefix: 'bad:' })
    await redis.set('bad:run:{r1}:checkpoint', '{"version": 99}')
    await expect(store.load('r1')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('schema version') })
    expect(await redis.get('bad:run:{r1}:checkpoint')).toBe('{"version": 99}')
  })

  it('the lock is exclusive, given back by its holder only, and expires when the holder stops renewing it', async () => {
    const store = redisCheckpoints(redis, { prefix: 'lock:', lockMs: 200 })
    const release = await store.acquire('r')
    expect(release).toBeTypeOf('function')
    expect(await store.acquire('r')).toBeUndefined()
    await release?.()
    const again = await store.acquire('r')
    expect(again).toBeTypeOf('function')
    // A holder that died: its lock is left to expire (here it is taken from under it by deleting
    // the renewal's target; what matters is that the key carries an expiry at all).
    const pttl = await redis.pttl('lock:run:{r}:lock')
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(200)
    await again?.()
    expect(await redis.exists('lock:run:{r}:lock')).toBe(0)
  })
})
