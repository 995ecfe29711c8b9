import { Redis, type RedisOptions } from 'ioredis'

/** A Redis URL (`redis://host:port/db`), ioredis options, or a client to share. */
export type RedisConnection = string | RedisOptions | Redis

/**
 * The client a queue or worker works through, and whether it made it (then it closes it too).
 * BullMQ needs `maxRetriesPerRequest: null` (commands wait out a reconnection instead of
 * failing); laconic bounds its own waits with `unavailableMs` instead.
 */
export function openConnection(connection: RedisConnection): { redis: Redis; owned: boolean } {
  if (connection instanceof Redis) return { redis: connection, owned: false }
  const options: RedisOptions = { maxRetriesPerRequest: null }
  const redis = typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...connection, ...options })
  // A client without an `error` listener crashes the process on a refused connection; ioredis
  // reconnects by itself, and the operations that wait on it report their own errors.
  redis.on('error', () => {})
  return { redis, owned: true }
}

/** Rejects when `promise` has not settled in `ms`: Redis gone for too long is an error, not a hang. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: Redis did not answer for ${Math.round(ms / 1000)} s`)), ms)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}
