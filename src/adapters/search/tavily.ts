/**
 * `tavily()`: the Tavily search API (Bearer key). Its plan and spending limits (HTTP 432
 * and 433) come back with an explanation instead of a bare status.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { requestJson } from './request-json.js'
import { clampCount, field, keyFrom, toResults } from './result-fields.js'
import { transport, type HttpSearchOptions } from './options.js'
import { callSourceRules } from './source-rules.js'

/** Options of `tavily()`: the API key, endpoint, search depth and Tavily filters. */
export interface TavilyOptions extends HttpSearchOptions {
  /** @defaultValue the `TAVILY_API_KEY` environment variable */
  readonly apiKey?: string
  /** @defaultValue 'https://api.tavily.com' */
  readonly baseURL?: string
  /** `advanced` finds better passages and costs two credits. @defaultValue 'basic' */
  readonly searchDepth?: 'basic' | 'advanced'
  readonly topic?: 'general' | 'news' | 'finance'
  /**
   * Dollars per call. @defaultValue 0.008 per credit at Tavily's pay-as-you-go list price
   * at the time of writing: 0.008 for `basic`, 0.016 for `advanced`
   */
  readonly searchCost?: number
}

/** Tavily's `results` as search results, keeping its relevance `score`. Total. */
export function parseTavilyResponse(body: unknown): SearchResult[] {
  const results = toResults(field(body, 'results'), { title: 'title', url: 'url', snippet: 'content', score: 'score' })
  // `published_date` (news results) dates a result for the run's `sources` window.
  const raw = field(body, 'results')
  if (Array.isArray(raw)) {
    for (const result of results) {
      const date = field(
        raw.find((item) => field(item, 'url') === result.url),
        'published_date',
      )
      const day = typeof date === 'string' ? new Date(date) : undefined
      if (day && !Number.isNaN(day.getTime())) result.published = day.toISOString().slice(0, 10)
    }
  }
  return results
}

function tavilyHint(status: number | undefined): string | undefined {
  if (status === 401 || status === 403) return 'Tavily refused the key: check `apiKey` (TAVILY_API_KEY, it starts with tvly-)'
  if (status === 432) return "the Tavily plan's credit limit is used up: upgrade the plan or wait for the monthly reset"
  if (status === 433) return 'the Tavily pay-as-you-go spending limit is reached: raise it in the Tavily dashboard'
  return undefined
}

/** A `SearchProvider` for the Tavily search API; the key comes from `apiKey` or `TAVILY_API_KEY`. */
export function tavily(options: TavilyOptions = {}): SearchProvider {
  const apiKey = keyFrom(options.apiKey, 'TAVILY_API_KEY')
  if (!apiKey) {
    throw new LaconicError('tavily: no API key', { code: 'config', hint: 'pass `apiKey` to tavily() or set TAVILY_API_KEY; get one at https://app.tavily.com' })
  }
  const { baseURL = 'https://api.tavily.com', searchDepth = 'basic' } = options

  return {
    searchCost: options.searchCost ?? (searchDepth === 'advanced' ? 0.016 : 0.008),
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const maxResults = clampCount(opts.limit, 5, 20)
      // Tavily filters by domain and by publication date itself.
      const rules = callSourceRules(opts)
      const filters = rules && {
        ...(rules.allow.length && { include_domains: rules.allow }),
        ...(rules.deny.length && { exclude_domains: rules.deny }),
        ...(rules.after && { start_date: rules.after }),
        ...(rules.before && { end_date: rules.before }),
      }
      const body = await requestJson({
        url: `${baseURL.replace(/\/+$/, '')}/search`,
        method: 'POST',
        json: { query, search_depth: searchDepth, max_results: maxResults, ...(options.topic && { topic: options.topic }), ...filters },
        headers: { ...options.headers, authorization: `Bearer ${apiKey}` },
        provider: 'tavily',
        ...transport(options, opts, apiKey),
        hint: ({ status }) => tavilyHint(status),
      })
      if (rules)
        opts.onSourcesApplied?.([
          ...(rules.allow.length || rules.deny.length ? ['domains' as const] : []),
          ...(rules.after || rules.before ? ['dates' as const] : []),
        ])
      return parseTavilyResponse(body).slice(0, maxResults)
    },
  }
}
