/**
 * The session store of docs/sessions.md on Redis: one key per chat holding its state's JSON (a
 * `SET` replaces it whole). `update` reads the state, applies the change in this process, and
 * writes it with a script that sets it only if the key still holds what was read (compare and
 * set), trying again on a conflict. No `WATCH`: that is connection state, and the client is shared.
 */
import type { Redis } from 'ioredis'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { checkChatId, parseSessionState, type SessionState, type SessionStore } from '../conversations/session-store.js'
import { DEFAULT_PREFIX } from './keys.js'

/** Options of `redisSessions()`: the key prefix, how long a chat is kept, how often `update` retries. */
export interface RedisSessionsOptions {
  /** Prefix of every key. @defaultValue 'laconic:' */
  readonly prefix?: string
  /** Seconds a chat is kept after it was last saved. @defaultValue 2592000 (30 days) */
  readonly ttlSeconds?: number
  /** Attempts of an `update` that keeps finding the chat changed by another writer, before a `locked` error. @defaultValue 50 */
  readonly maxAttempts?: number
}

/** Sets KEYS[1] to ARGV[3] (for ARGV[4] seconds) only if it holds ARGV[2], or is missing when ARGV[1] is '0'. */
const COMPARE_AND_SET = `local current = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
return 1`

/** A `SessionStore` on Redis, shared by every process: a chat saved by one continues on another. */
export function redisSessions(redis: Redis, options: RedisSessionsOptions = {}): SessionStore {
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const ttl = options.ttlSeconds ?? 2_592_000
  const maxAttempts = options.maxAttempts ?? 50
  if (!(Number.isInteger(ttl) && ttl > 0)) throw new TypeError(`\`ttlSeconds\` must be a whole number of seconds > 0, got ${ttl}`)
  if (!(Number.isInteger(maxAttempts) && maxAttempts > 0)) throw new TypeError(`\`maxAttempts\` must be a whole number > 0, got ${maxAttempts}`)
  const key = (chatId: string) => `${prefix}chat:{${checkChatId(chatId)}}:session`
  const where = (chatId: string) => `the session of chat ${chatId} in Redis`
  const text = (chatId: string, state: SessionState) => JSON.stringify(parseSessionState(state, `the session given for chat ${chatId}`))

  return {
    async load(chatId) {
      const saved = await redis.get(key(chatId))
      return saved === null ? undefined : parseSessionState(saved, where(chatId))
    },
    async save(chatId, state) {
      await redis.set(key(chatId), text(chatId, state), 'EX', ttl)
    },
    async delete(chatId) {
      await redis.del(key(chatId))
    },
    async update(chatId, change) {
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const saved = await redis.get(key(chatId))
        const next = change(saved === null ? undefined : parseSessionState(saved, where(chatId)))
        const set = await redis.eval(COMPARE_AND_SET, 1, key(chatId), saved === null ? '0' : '1', saved ?? '', text(chatId, next), ttl)
        if (set === 1) return next
      }
      throw new LaconicError(`the session of chat ${chatId} kept changing under ${maxAttempts} attempts to update it`, {
        code: 'locked',
        hint: 'too many turns of one chat end at once; try again',
      })
    },
  }
}
