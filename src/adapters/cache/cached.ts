/**
 * `cached(provider, { store, ttl })` wraps a search provider, a fetch provider or one
 * object that is both. Hits and shared in-flight results carry `cached: true` (on each
 * search result, on a page), so the runtime reports `cached: true` and charges nothing for them.
 */
import { onAbort } from '../../core/util/abort-listener.js'
import { abortError, isAbortError } from '../../core/contracts/laconic-error.js'
import type { FetchOptions, FetchProvider, FetchedPage, SearchOptions, SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { createSingleFlight } from './single-flight.js'
import { memoryCache } from './memory-cache.js'
import type { CacheStore } from './memory-cache.js'

/** Options of `cached()`: where entries live, how long they stay fresh, and how a store's failures are reported. */
export interface CacheOptions {
  /** Where entries live. @defaultValue an in-memory LRU of 1000 entries (`memoryCache()`) */
  readonly store?: CacheStore
  /** How long an entry stays fresh, in milliseconds. @defaultValue 3_600_000 (one hour) */
  readonly ttl?: number
  /** Prefix for every key, so several providers can share one store without collisions. @defaultValue '' */
  readonly namespace?: string
  /**
   * Told when the store fails. The request still goes to the provider: a broken cache
   * slows a run down but never fails it.
   */
  readonly onStoreError?: (error: unknown) => void
}

const isSearchResults = (value: unknown): value is SearchResult[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && typeof (item as SearchResult).url === 'string')

const isFetchedPage = (value: unknown): value is FetchedPage =>
  typeof value === 'object' && value !== null && typeof (value as FetchedPage).text === 'string' && typeof (value as FetchedPage).url === 'string'

const markResults = (results: SearchResult[]): SearchResult[] => results.map((result) => ({ ...result, cached: true }))
const markPage = (page: FetchedPage): FetchedPage => ({ ...page, cached: true })

/** Wraps a search or fetch provider so repeated queries and URLs are answered from a cache for `ttl` milliseconds. */
export function cached<P extends SearchProvider | FetchProvider>(provider: P, options: CacheOptions = {}): P {
  const { store = memoryCache(), ttl = 3_600_000, namespace = '', onStoreError } = options
  if (!(ttl > 0)) throw new TypeError(`\`ttl\` must be a positive number of milliseconds, got ${ttl}`)
  const flights = createSingleFlight()

  async function lookup<T extends object>(key: string, valid: (value: unknown) => value is T, signal: AbortSignal | undefined): Promise<T | undefined> {
    let value: unknown
    try {
      value = await untilAborted(store.get(key), signal)
    } catch (error) {
      if (isAbortError(error) && signal?.aborted) throw error
      onStoreError?.(error)
      return undefined
    }
    return valid(value) ? value : undefined
  }

  async function through<T extends object>(
    key: string,
    valid: (value: unknown) => value is T,
    mark: (copy: T) => T,
    signal: AbortSignal | undefined,
    call: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const hit = await lookup(key, valid, signal)
    if (hit) return mark(structuredClone(hit))
    const { joined, result } = flights.run(key, signal, async (flightSignal) => {
      const value = await call(flightSignal)
      try {
        await untilAborted(store.set(key, structuredClone(value), ttl), flightSignal)
      } catch (error) {
        if (flightSignal.aborted) throw error
        onStoreError?.(error)
      }
      return value
    })
    // Callers that joined another's call share its cost, which the first caller already paid.
    return joined ? mark(structuredClone(await result)) : result
  }

  // Delegate everything else (searchCost, extra methods) to the wrapped provider.
  const wrapper = Object.create(provider) as P & Partial<SearchProvider & FetchProvider>
  const search = (provider as Partial<SearchProvider>).search
  const fetch = (provider as Partial<FetchProvider>).fetch
  if (typeof search === 'function') {
    wrapper.search = (query: string, opts: SearchOptions = {}) =>
      through(`${namespace}search:${opts.limit ?? ''}:${query}`, isSearchResults, markResults, opts.signal, (signal) =>
        search.call(provider, query, { ...opts, signal }),
      )
  }
  if (typeof fetch === 'function') {
    wrapper.fetch = (url: string, opts: FetchOptions = {}) =>
      through(`${namespace}fetch:${url}`, isFetchedPage, markPage, opts.signal, (signal) => fetch.call(provider, url, { ...opts, signal }))
  }
  return wrapper
}

/** A store call raced with the signal: a store that hangs (a dead Redis) never outlives an abort. */
function untilAborted<T>(call: Promise<T> | T, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return Promise.resolve(call)
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = onAbort(signal, () => reject(abortError(signal)))
    Promise.resolve(call).then(
      (value) => {
        stopWaiting()
        resolve(value)
      },
      (error: unknown) => {
        stopWaiting()
        reject(error)
      },
    )
  })
}
