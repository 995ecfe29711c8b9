import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { cached, memoryCache } from '../../../src/adapters/index.js'
import type { CacheStore } from '../../../src/adapters/index.js'
import type { FetchedPage, FetchProvider, SearchOptions, SearchProvider, SearchResult } from '../../../src/index.js'

/** Whether a cache served this: every result (or the page) carries `cached: true`. */
const wasCached = (served: SearchResult[] | FetchedPage) =>
  Array.isArray(served) ? served.length > 0 && served.every((result) => result.cached === true) : served.cached === true
const unmarked = <T extends { cached?: true }>({ cached: _mark, ...rest }: T) => rest

/** A search provider whose calls stay pending until the test releases them. */
function gatedSearch() {
  const calls: { query: string; opts: SearchOptions | undefined; release: () => void; fail: (e: Error) => void }[] = []
  const provider: SearchProvider = {
    searchCost: 0.01,
    search(query, opts) {
      return new Promise<SearchResult[]>((resolve, reject) => {
        const results = [{ title: `t ${query}`, url: `https://example.com/${encodeURIComponent(query)}`, snippet: 's' }]
        calls.push({ query, opts, release: () => resolve(results), fail: reject })
        opts?.signal?.addEventListener('abort', () => reject(opts.signal?.reason))
      })
    },
  }
  return { provider, calls }
}

function countingSearch(): SearchProvider & { count: number } {
  return {
    count: 0,
    async search(query, opts) {
      this.count += 1
      return [{ title: query, url: `https://example.com/${this.count}`, snippet: `limit ${opts?.limit}` }]
    },
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('cached', () => {
  it('shares one upstream call among N identical concurrent searches and marks all but the first', async () => {
    const { provider, calls } = gatedSearch()
    const search = cached(provider)
    const pending = Array.from({ length: 8 }, () => search.search('llamas'))
    await tick()
    expect(calls).toHaveLength(1)
    calls[0]?.release()
    const results = await Promise.all(pending)
    for (const result of results) expect(result.map(unmarked)).toEqual(results[0])
    expect(results.filter((result) => wasCached(result))).toHaveLength(7)
  })

  it('makes one upstream call per distinct request, whatever the mix of concurrent requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom(undefined, 3, 5)), { minLength: 1, maxLength: 20 }),
        async (requests) => {
          const upstream = countingSearch()
          const search = cached(upstream)
          await Promise.all(requests.map(([query, limit]) => search.search(query, limit === undefined ? {} : { limit })))
          expect(upstream.count).toBe(new Set(requests.map(([query, limit]) => `${query}/${limit}`)).size)
        },
      ),
    )
  })

  it('serves later identical requests from the store, as marked copies the caller may mutate', async () => {
    const upstream = countingSearch()
    const search = cached(upstream)
    const first = await search.search('q', { limit: 3 })
    expect(wasCached(first)).toBe(false)
    first[0]!.title = 'mutated by caller'
    const second = await search.search('q', { limit: 3 })
    expect(upstream.count).toBe(1)
    expect(wasCached(second)).toBe(true)
    expect(second[0]?.title).toBe('q')
    await search.search('q', { limit: 4 })
    expect(upstream.count).toBe(2)
  })

  it('expires entries after ttl and evicts the least recently used', async () => {
    let now = 1_000
    const upstream = countingSearch()
    const search = cached(upstream, { ttl: 50, store: memoryCache({ maxEntries: 2, now: () => now }) })
    await search.search('a')
    await search.search('b')
    await search.search('a') // hit: 'a' is now the most recently used
    await search.search('c') // evicts 'b'
    expect(upstream.count).toBe(3)
    await search.search('a')
    expect(upstream.count).toBe(3)
    await search.search('b')
    expect(upstream.count).toBe(4)
    now += 50
    await search.search('a')
    expect(upstream.count).toBe(5)
  })

  it('does not cache failures', async () => {
    let attempt = 0
    const search = cached<SearchProvider>({
      async search() {
        attempt += 1
        if (attempt === 1) throw new Error('upstream down')
        return []
      },
    })
    await expect(search.search('q')).rejects.toThrow('upstream down')
    await expect(search.search('q')).resolves.toEqual([])
    expect(attempt).toBe(2)
  })

  it('keeps the shared call alive while any caller still waits, and aborts it when all have left', async () => {
    const { provider, calls } = gatedSearch()
    const search = cached(provider)
    const first = new AbortController()
    const second = new AbortController()
    const a = search.search('q', { signal: first.signal })
    const b = search.search('q', { signal: second.signal })
    await tick()
    first.abort()
    await expect(a).rejects.toMatchObject({ code: 'aborted' })
    expect(calls[0]?.opts?.signal?.aborted).toBe(false)
    second.abort()
    await expect(b).rejects.toMatchObject({ code: 'aborted' })
    expect(calls[0]?.opts?.signal?.aborted).toBe(true)
    // a fresh request after everyone left starts a new upstream call
    const c = search.search('q')
    await tick()
    expect(calls).toHaveLength(2)
    calls[1]?.release()
    await expect(c).resolves.toHaveLength(1)
  })

  it('wraps fetch providers and providers that are both, keeping searchCost', async () => {
    let fetches = 0
    const both: SearchProvider & FetchProvider = {
      searchCost: 0.002,
      async search() {
        return []
      },
      async fetch(url) {
        fetches += 1
        return { url, title: 'T', text: 'body' }
      },
    }
    const wrapped = cached(both)
    expect(wrapped.searchCost).toBe(0.002)
    const page = await wrapped.fetch('https://example.com/a')
    const again = await wrapped.fetch('https://example.com/a')
    expect(unmarked(again)).toEqual(page)
    expect(wasCached(again)).toBe(true)
    expect(fetches).toBe(1)
    // a search and a fetch never share a key
    expect(await wrapped.search('https://example.com/a')).toEqual([])
  })

  it('uses an async store, ignores malformed entries and falls through when the store fails', async () => {
    const data = new Map<string, unknown>([['search::bad', 'not results']])
    const errors: unknown[] = []
    let broken = false
    const store: CacheStore = {
      async get(key) {
        if (broken) throw new Error('store down')
        return data.get(key)
      },
      async set(key, value) {
        if (broken) throw new Error('store down')
        data.set(key, JSON.parse(JSON.stringify(value)))
      },
    }
    const upstream = countingSearch()
    const search = cached(upstream, { store, onStoreError: (error) => errors.push(error) })
    await search.search('bad')
    expect(upstream.count).toBe(1)
    expect(wasCached(await search.search('bad'))).toBe(true)
    broken = true
    await expect(search.search('other')).resolves.toHaveLength(1)
    expect(errors).toHaveLength(2)
  })

  it('rejects a ttl that is not a positive number', () => {
    expect(() => cached(countingSearch(), { ttl: 0 })).toThrow(/ttl/)
  })
})

describe('cached with a store that hangs (issue 13)', () => {
  const hanging: CacheStore = { get: () => new Promise(() => {}), set: () => new Promise(() => {}) }

  it('an abort ends a lookup the store never answers', async () => {
    const search = cached(countingSearch(), { store: hanging })
    const controller = new AbortController()
    const searching = search.search('llamas', { signal: controller.signal })
    controller.abort()
    await expect(searching).rejects.toMatchObject({ code: 'aborted' })
  })

  it('an abort ends a call whose store write never finishes', async () => {
    let gets = 0
    const store: CacheStore = {
      get: async () => {
        gets++
        return undefined
      },
      set: () => new Promise(() => {}),
    }
    const upstream = countingSearch()
    const search = cached(upstream, { store })
    const controller = new AbortController()
    const searching = search.search('llamas', { signal: controller.signal })
    // The upstream call has run (its result is being written): only the abort can end the wait now.
    while (upstream.count === 0) await tick()
    controller.abort()
    await expect(searching).rejects.toMatchObject({ code: 'aborted' })
    expect(gets).toBe(1)
  })
})
