/**
 * `searxng({ baseURL })`: a self-hosted SearXNG metasearch instance through its JSON
 * output, which instances must enable (a 403 says how).
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { requestJson } from './request-json.js'
import { field, toResults } from './result-fields.js'
import { transport, type HttpSearchOptions } from './options.js'

/** Options of `searxng()`: the instance URL, and SearXNG categories, engines and language. */
export interface SearxngOptions extends HttpSearchOptions {
  /** The instance, e.g. `'http://localhost:8080'`. */
  readonly baseURL: string
  /** Comma-separated, e.g. `'general,science'`. */
  readonly categories?: string
  /** Comma-separated engine names, e.g. `'wikipedia,duckduckgo'`. */
  readonly engines?: string
  readonly language?: string
  readonly timeRange?: 'day' | 'month' | 'year'
  readonly safesearch?: 0 | 1 | 2
}

/** SearXNG's `results` as search results. Total. */
export function parseSearxngResponse(body: unknown): SearchResult[] {
  return toResults(field(body, 'results'), { title: 'title', url: 'url', snippet: 'content', score: 'score' })
}

/** A `SearchProvider` for a SearXNG instance (its JSON API must be enabled). */
export function searxng(options: SearxngOptions): SearchProvider {
  if (!options?.baseURL) {
    throw new LaconicError('searxng: no instance URL', { code: 'config', hint: "pass `baseURL`, e.g. searxng({ baseURL: 'http://localhost:8080' })" })
  }
  const { baseURL } = options

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const params = new URLSearchParams({ q: query, format: 'json' })
      if (options.categories) params.set('categories', options.categories)
      if (options.engines) params.set('engines', options.engines)
      if (options.language) params.set('language', options.language)
      if (options.timeRange) params.set('time_range', options.timeRange)
      if (options.safesearch !== undefined) params.set('safesearch', String(options.safesearch))
      const body = await requestJson({
        url: `${baseURL.replace(/\/+$/, '')}/search?${params}`,
        method: 'GET',
        headers: { ...options.headers },
        provider: 'searxng',
        ...transport(options, opts),
        hint: ({ status }) =>
          status === 403 ? 'the instance refuses format=json: add `json` to `search.formats` in its settings.yml and restart it' : undefined,
      })
      const results = parseSearxngResponse(body)
      return opts.limit === undefined ? results : results.slice(0, Math.max(0, opts.limit))
    },
  }
}
