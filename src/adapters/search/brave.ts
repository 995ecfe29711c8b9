/**
 * `brave()`: the Brave Search API (`X-Subscription-Token`). Highlight tags in
 * descriptions are stripped; a missing `web` section means no results.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { requestJson } from './request-json.js'
import { clampCount, field, keyFrom, toResults } from './result-fields.js'
import { callSourceRules } from './source-rules.js'
import { transport, type HttpSearchOptions } from './options.js'

/** Options of `brave()`: the API key, the endpoint, and Brave Search filters. */
export interface BraveOptions extends HttpSearchOptions {
  /** @defaultValue the `BRAVE_API_KEY` environment variable */
  readonly apiKey?: string
  /** @defaultValue 'https://api.search.brave.com/res/v1' */
  readonly baseURL?: string
  /** Two-letter country code, e.g. `'US'`. */
  readonly country?: string
  /** Language of the results, e.g. `'en'`. */
  readonly searchLang?: string
  readonly safesearch?: 'off' | 'moderate' | 'strict'
  /** `'pd'`, `'pw'`, `'pm'`, `'py'` or a date range `YYYY-MM-DDtoYYYY-MM-DD`. */
  readonly freshness?: string
  /** Dollars per call. @defaultValue 0.005 (Brave's list price per query at the time of writing) */
  readonly searchCost?: number
}

/** Brave's `web.results` as search results. Total: any other shape gives `[]`. */
export function parseBraveResponse(body: unknown): SearchResult[] {
  const raw = field(field(body, 'web'), 'results')
  const results = toResults(raw, { title: 'title', url: 'url', snippet: 'description' }, true)
  // `page_age` (an ISO timestamp, where Brave knows it) dates a result for the run's `sources` window.
  if (Array.isArray(raw)) {
    for (const result of results) {
      const age = field(
        raw.find((item) => field(item, 'url') === result.url),
        'page_age',
      )
      const day = typeof age === 'string' && /^\d{4}-\d{2}-\d{2}/.test(age) ? age.slice(0, 10) : undefined
      if (day) result.published = day
    }
  }
  return results
}

/** A `SearchProvider` for the Brave Search API; the key comes from `apiKey` or `BRAVE_API_KEY`. */
export function brave(options: BraveOptions = {}): SearchProvider {
  const apiKey = keyFrom(options.apiKey, 'BRAVE_API_KEY')
  if (!apiKey) {
    throw new LaconicError('brave: no API key', {
      code: 'config',
      hint: 'pass `apiKey` to brave() or set BRAVE_API_KEY; get one at https://api-dashboard.search.brave.com',
    })
  }
  const { baseURL = 'https://api.search.brave.com/res/v1', searchCost = 0.005 } = options

  return {
    searchCost,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 10, 20)
      const params = new URLSearchParams({ q: query, count: String(count) })
      if (options.country) params.set('country', options.country)
      if (options.searchLang) params.set('search_lang', options.searchLang)
      if (options.safesearch) params.set('safesearch', options.safesearch)
      // The run's date window as Brave's `freshness` range (`YYYY-MM-DDtoYYYY-MM-DD`), unless set here.
      const rules = options.freshness ? undefined : callSourceRules(opts)
      const dated = rules !== undefined && (rules.after !== undefined || rules.before !== undefined)
      if (options.freshness) params.set('freshness', options.freshness)
      else if (dated) params.set('freshness', `${rules.after ?? '1970-01-01'}to${rules.before ?? new Date().toISOString().slice(0, 10)}`)
      const body = await requestJson({
        url: `${baseURL.replace(/\/+$/, '')}/web/search?${params}`,
        method: 'GET',
        headers: { ...options.headers, 'x-subscription-token': apiKey },
        provider: 'brave',
        ...transport(options, opts, apiKey),
        hint: ({ status }) =>
          status === 401 || status === 403 || status === 422
            ? 'Brave refused the subscription token: check `apiKey` (BRAVE_API_KEY) and that the plan includes web search'
            : undefined,
      })
      if (dated) opts.onSourcesApplied?.(['dates'])
      return parseBraveResponse(body).slice(0, count)
    },
  }
}
