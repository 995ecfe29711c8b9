import type { Redis } from 'ioredis'
import type { CacheStore } from '../adapters/cache/memory-cache.js'
import { DEFAULT_PREFIX } from './keys.js'

/** Options of `redisStore()`: the prefix of every cache key. */
export interface RedisStoreOptions {
  /** Prefix of every cache key. @defaultValue 'laconic:cache:' */
  readonly prefix?: string
}

/**
 * A `CacheStore` for `cached()` on Redis: every worker shares one search and fetch cache.
 * Values are JSON with a per-entry expiry (`SET … PX`); Redis's own eviction policy bounds the
 * memory (see docs/scale-out.md). An entry that is not valid JSON reads as a miss.
 */
export function redisStore(redis: Redis, { prefix = `${DEFAULT_PREFIX}cache:` }: RedisStoreOptions = {}): CacheStore {
  return {
    async get(key) {
      const text = await redis.get(prefix + key)
      if (text === null) return undefined
      try {
        return JSON.parse(text) as unknown
      } catch {
        return undefined
      }
    },
    async set(key, value, ttlMs) {
      await redis.set(prefix + key, JSON.stringify(value), 'PX', Math.max(1, Math.ceil(ttlMs)))
    },
  }
}
