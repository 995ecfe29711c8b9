import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisSessions } from '../../src/redis/index.js'
import { sessionStoreContract } from '../support/session-store-contract.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

describe.skipIf(!redisAvailable())('redisSessions', () => {
  let server: RedisServer
  let redis: Redis
  let n = 0
  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.port, '127.0.0.1')
  })
  afterAll(async () => {
    redis?.disconnect()
    await server?.close()
  })

  // Each test gets its own prefix; "reopening" is a new client and store over the same server.
  const clients: Redis[] = []
  afterAll(() => {
    for (const client of clients) client.disconnect()
  })
  sessionStoreContract('redisSessions', () => {
    const prefix = `t${++n}:`
    return {
      store: redisSessions(redis, { prefix }),
      reopen: () => {
        const client = new Redis(server.port, '127.0.0.1')
        clients.push(client)
        return redisSessions(client, { prefix })
      },
      corrupt: async (chatId, text) => {
        await redis.set(`${prefix}chat:{${chatId}}:session`, text)
      },
    }
  })

  it('keeps a chat for ttlSeconds after its last save, under the prefix', async () => {
    const store = redisSessions(redis, { prefix: 'ttl:', ttlSeconds: 60 })
    await store.update('chat-1', () => ({ version: 1, priorAnswers: [], citations: [], knowledge: 'k', facts: [] }))
    const ttl = await redis.ttl('ttl:chat:{chat-1}:session')
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60)
  })

  it('gives up with a locked error when the chat keeps changing under every attempt', async () => {
    const store = redisSessions(redis, { prefix: 'busy:', maxAttempts: 3 })
    let attempts = 0
    const change = () => {
      attempts++
      // Another writer lands between this read and the write, every time.
      void redis.set('busy:chat:{chat-2}:session', JSON.stringify({ version: 1, priorAnswers: [], citations: [], knowledge: String(attempts), facts: [] }))
      return { version: 1 as const, priorAnswers: [], citations: [], knowledge: 'mine', facts: [] }
    }
    await expect(store.update('chat-2', change)).rejects.toMatchObject({ code: 'locked' })
    expect(attempts).toBe(3)
  })
})
