/**
 * `arxiv()`: arXiv's API (an Atom feed at export.arxiv.org/api/query), read with an XML
 * parser. arXiv asks for one request every three seconds, so every `arxiv()` in the process
 * shares one pacer at that gap. A result's URL is the paper's PDF, which `httpFetch()` reads
 * with page citations; its abstract is the snippet.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider } from '../../core/contracts/providers.js'
import { callSourceRules, compactDay } from './source-rules.js'
import { transport } from './options.js'
import { createPacer, type Pacer } from './pacer.js'
import { badResponse, requestText } from './request-json.js'
import { clampCount } from './result-fields.js'
import { politeUserAgent, type ScholarlyOptions, trimSlash } from './scholarly.js'
import { readXmlAnswer, UNREADABLE_HINT } from './scholarly-parse.js'

/** Options of `arxiv()`: the endpoint, the order of results, and the pacing of requests. */
export interface ArxivOptions extends ScholarlyOptions {
  /** The API's address (a mirror, a proxy, a loopback server in tests). @defaultValue 'https://export.arxiv.org/api' */
  readonly baseURL?: string
  /** The order of the results. @defaultValue 'relevance' */
  readonly sortBy?: 'relevance' | 'lastUpdatedDate' | 'submittedDate'
}

/** arXiv's terms of use: no more than one request every three seconds. */
const arxivPacer: Pacer = createPacer({ intervalMs: 3000 })

/** A feed of 50 entries with abstracts is ~100 kB. */
const MAX_FEED_BYTES = 2_000_000

/** A `SearchProvider` for arXiv: no key, one request every three seconds per process. */
export function arxiv(options: ArxivOptions = {}): SearchProvider {
  const { baseURL = 'https://export.arxiv.org/api', sortBy = 'relevance', pacer = arxivPacer } = options

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 10, 50)
      // The run's date window as arXiv's submittedDate range (both ends needed).
      const rules = callSourceRules(opts)
      const dated = rules !== undefined && (rules.after !== undefined || rules.before !== undefined)
      const searchQuery = dated
        ? `(${query}) AND submittedDate:[${compactDay(rules.after ?? '1991-01-01', '')}0000 TO ${compactDay(rules.before ?? '2999-12-31', '')}2359]`
        : query
      const params = new URLSearchParams({ search_query: searchQuery, start: '0', max_results: String(count), sortBy, sortOrder: 'descending' })
      const request = {
        url: `${trimSlash(baseURL)}/query?${params}`,
        method: 'GET',
        headers: { accept: 'application/atom+xml', 'user-agent': politeUserAgent(), ...options.headers },
        provider: 'arxiv',
        ...transport(options, opts),
        beforeAttempt: (signal: AbortSignal | undefined) => pacer.wait(signal),
        hint: ({ status }: { status?: number | undefined }) =>
          status === 400 ? 'arXiv refused the query: see https://info.arxiv.org/help/api/user-manual.html#query_details for its syntax' : undefined,
      }
      const { text, status } = await requestText(request, MAX_FEED_BYTES)
      const feed = await readXmlAnswer('arxiv', text, opts.signal)
      if (feed.kind === 'not-a-feed') throw badResponse(request, status, text, 'the response is not an Atom feed')
      if (feed.kind === 'unreadable') throw badResponse(request, status, text, `the feed could not be read (${feed.reason})`, UNREADABLE_HINT)
      if (feed.kind === 'error') {
        throw new ProviderError(`arxiv: ${feed.message}`, {
          code: 'bad-response',
          provider: 'arxiv',
          status,
          providerMessage: feed.message,
          hint: 'arXiv refused the query: see https://info.arxiv.org/help/api/user-manual.html#query_details for its syntax',
        })
      }
      if (dated) opts.onSourcesApplied?.(['dates'])
      return feed.results.slice(0, count)
    },
  }
}
