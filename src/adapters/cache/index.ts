export { cached } from './cached.js'
export type { CacheOptions } from './cached.js'
export { memoryStore } from './store.js'
export type { CacheStore, MemoryStoreOptions } from './store.js'
