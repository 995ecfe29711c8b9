export { cached } from './cached.js'
export type { CacheOptions } from './cached.js'
export { memoryCache } from './memory-cache.js'
export type { CacheStore, MemoryCacheOptions } from './memory-cache.js'
