/**
 * The checkpoint store of docs/checkpoints.md on Redis: one key per run holding the checkpoint's
 * JSON (a `SET` replaces it whole, so a reader never sees half of one), and the resume lock as a
 * key taken with `SET NX PX`. The holder renews the lock while it runs; a holder that died lets
 * it expire, so another worker can take the run over `lockMs` later.
 */
import type { Redis } from 'ioredis'
import { parseCheckpoint, type CheckpointStore } from '../core/contracts/checkpoint.js'
import { DEFAULT_PREFIX } from './keys.js'

/** Options of `redisCheckpoints()`: the key prefix, how long a lock and a checkpoint last. */
export interface RedisCheckpointsOptions {
  /** Prefix of every key. @defaultValue 'laconic:' */
  readonly prefix?: string
  /** How long a lock outlives a holder that stopped renewing it (a killed process), in ms. @defaultValue 30000 */
  readonly lockMs?: number
  /** Seconds a checkpoint is kept after it was last saved. @defaultValue 604800 (a week) */
  readonly ttlSeconds?: number
}

/** Deletes or extends the lock only while it still holds this holder's token. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`

/** A `CheckpointStore` on Redis, shared by every worker: a run saved by one resumes on another. */
export function redisCheckpoints(redis: Redis, options: RedisCheckpointsOptions = {}): CheckpointStore {
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const lockMs = options.lockMs ?? 30_000
  const ttl = options.ttlSeconds ?? 604_800
  if (!(Number.isInteger(lockMs) && lockMs >= 100)) throw new TypeError(`\`lockMs\` must be a whole number of ms >= 100, got ${lockMs}`)
  const key = (runId: string) => `${prefix}run:{${runId}}:checkpoint`
  const lockKey = (runId: string) => `${prefix}run:{${runId}}:lock`

  return {
    async save(checkpoint) {
      await redis.set(key(checkpoint.runId), JSON.stringify(checkpoint), 'EX', ttl)
    },
    async load(runId) {
      const text = await redis.get(key(runId))
      return text === null ? undefined : parseCheckpoint(text, `the checkpoint of run ${runId} in Redis`)
    },
    async delete(runId) {
      await redis.del(key(runId))
    },
    async acquire(runId) {
      const token = crypto.randomUUID()
      const taken = await redis.set(lockKey(runId), token, 'PX', lockMs, 'NX')
      if (taken !== 'OK') return undefined
      // Renewed well before it expires; a renewal that fails (Redis away for a moment) is retried
      // at the next tick, and a lock lost meanwhile is simply not renewed.
      const renewal = setInterval(
        () => {
          redis.eval(RENEW, 1, lockKey(runId), token, lockMs).catch(() => undefined)
        },
        Math.max(50, Math.floor(lockMs / 3)),
      )
      renewal.unref()
      let released = false
      return async () => {
        if (released) return
        released = true
        clearInterval(renewal)
        await redis.eval(RELEASE, 1, lockKey(runId), token)
      }
    },
  }
}
