/**
 * Where `cached` keeps results. The interface is async and JSON-shaped so Redis, a file
 * or a KV store can stand in for the in-memory default.
 */

export interface CacheStore {
  /** The value stored under `key`, or `undefined` when missing or expired. */
  get(key: string): Promise<unknown>
  /** Store a JSON-compatible value for `ttlMs` milliseconds. */
  set(key: string, value: unknown, ttlMs: number): Promise<void>
}

/** Options of `memoryCache()`: how many entries it keeps. */
export interface MemoryCacheOptions {
  /**
   * Entries kept before the least recently used one is dropped.
   * @defaultValue 1000
   */
  readonly maxEntries?: number
  /** Clock in ms, injectable for tests. @defaultValue Date.now */
  readonly now?: () => number
}

/**
 * An in-memory LRU store for `cached`, with per-entry expiry. (Named apart from `memoryStore` of
 * `laconic-research/kb`, which keeps long-term memory.)
 */
export function memoryCache({ maxEntries = 1000, now = Date.now }: MemoryCacheOptions = {}): CacheStore {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError(`\`maxEntries\` must be a positive integer, got ${maxEntries}`)
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  const entries = new Map<string, { value: unknown; expires: number }>()
  return {
    async get(key) {
      const entry = entries.get(key)
      if (!entry) return undefined
      entries.delete(key)
      if (entry.expires <= now()) return undefined
      entries.set(key, entry)
      return entry.value
    },
    async set(key, value, ttlMs) {
      entries.delete(key)
      entries.set(key, { value, expires: now() + ttlMs })
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    },
  }
}
