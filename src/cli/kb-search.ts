/**
 * `--kb PATH` beside a web search: one search provider over both, their results interleaved
 * (the knowledge base's first, then the web's first, ...) and labelled `[kb]` or `[web]` in
 * their titles, so the model and the reader see where each source came from; and one fetch
 * provider that reads the knowledge base's own documents from it and everything else from the web.
 */
import { ProviderError } from '../core/contracts/laconic-error.js'
import type { FetchProvider, SearchProvider, SearchResult } from '../core/contracts/providers.js'

const label = (tag: string, results: readonly SearchResult[]) => results.map((result) => ({ ...result, title: `[${tag}] ${result.title}` }))

export function kbAndWebSearch(kb: SearchProvider, web: SearchProvider): SearchProvider {
  return {
    ...(web.searchCost !== undefined ? { searchCost: web.searchCost } : {}),
    async search(query, opts = {}) {
      const [fromKb, fromWeb] = await Promise.all([kb.search(query, opts), web.search(query, opts)])
      const lists = [label('kb', fromKb), label('web', fromWeb)]
      const merged: SearchResult[] = []
      const seen = new Set<string>()
      for (let rank = 0; rank < Math.max(fromKb.length, fromWeb.length); rank++) {
        for (const list of lists) {
          const result = list[rank]
          if (result && !seen.has(result.url)) {
            seen.add(result.url)
            merged.push(result)
          }
        }
      }
      return merged.slice(0, opts.limit ?? merged.length)
    },
  }
}

export function kbOrWebFetch(kb: FetchProvider, web: FetchProvider): FetchProvider {
  return {
    async fetch(url, opts = {}) {
      try {
        return await kb.fetch(url, opts)
      } catch (error) {
        if (error instanceof ProviderError && error.code === 'not-found' && error.provider === 'kb') return web.fetch(url, opts)
        throw error
      }
    },
  }
}
