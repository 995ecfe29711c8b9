/**
 * `semanticScholar()`: the Semantic Scholar Graph API's paper search. It works without a key
 * (from a pool shared by every keyless caller, so 429s are common); a key (`x-api-key`) is
 * allowed one request a second, which every `semanticScholar()` in the process keeps to.
 */
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { transport } from './options.js'
import { createPacer, type Pacer } from './pacer.js'
import { requestJson } from './request-json.js'
import { clampCount, field, keyFrom, list } from './result-fields.js'
import { arxivIdOf, doiOf, MAX_AUTHORS, metaOf, politeUserAgent, type ScholarlyOptions, scholarlyResult, trimSlash, webUrl, yearOf } from './scholarly.js'

/** Options of `semanticScholar()`: an optional key, the endpoint, and Graph API filters. */
export interface SemanticScholarOptions extends ScholarlyOptions {
  /** Sent as `x-api-key`. @defaultValue the `SEMANTIC_SCHOLAR_API_KEY` environment variable, else none */
  readonly apiKey?: string
  /** The API's address (a mirror, a proxy, a loopback server in tests). @defaultValue 'https://api.semanticscholar.org/graph/v1' */
  readonly baseURL?: string
  /** A year or range, e.g. `'2019'`, `'2016-2020'`, `'2010-'`. */
  readonly year?: string
  /** Comma-separated, e.g. `'Computer Science,Medicine'`. */
  readonly fieldsOfStudy?: string
  /** Only papers with a free PDF. */
  readonly openAccessPdf?: boolean
}

/** The introductory limit of a key: one request a second (keyless callers share a pool). */
const semanticScholarPacer: Pacer = createPacer({ intervalMs: 1000 })

const FIELDS = 'title,abstract,url,venue,year,authors,externalIds,openAccessPdf'

function paperResult(paper: unknown): SearchResult | undefined {
  const paperId = field(paper, 'paperId')
  const page =
    webUrl(field(paper, 'url')) ??
    (typeof paperId === 'string' && /^[0-9a-f]{40}$/i.test(paperId) ? `https://www.semanticscholar.org/paper/${paperId}` : undefined)
  const pdfUrl = webUrl(field(field(paper, 'openAccessPdf'), 'url'))
  const url = pdfUrl ?? page
  if (!url) return undefined
  const ids = field(paper, 'externalIds')
  const meta = metaOf({
    authors: list(field(paper, 'authors'))
      .map((author) => field(author, 'name'))
      .filter((name): name is string => typeof name === 'string' && name.trim() !== '')
      .slice(0, MAX_AUTHORS),
    year: yearOf(field(paper, 'year')),
    venue: text(field(paper, 'venue')),
    doi: doiOf(field(ids, 'DOI')),
    arxivId: arxivIdOf(field(ids, 'ArXiv')),
    pdfUrl,
  })
  const snippet = text(field(paper, 'abstract')) || text(field(field(paper, 'tldr'), 'text'))
  return scholarlyResult({ title: text(field(paper, 'title')) || url, url, snippet }, meta)
}

const text = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '')

/** The Graph API's `data` as search results. Total: any other shape gives `[]`. */
export function parseSemanticScholarResponse(body: unknown): SearchResult[] {
  return list(field(body, 'data')).flatMap((paper) => paperResult(paper) ?? [])
}

/** A `SearchProvider` for Semantic Scholar's paper search; the key is optional. */
export function semanticScholar(options: SemanticScholarOptions = {}): SearchProvider {
  const { baseURL = 'https://api.semanticscholar.org/graph/v1', pacer = semanticScholarPacer } = options
  const apiKey = keyFrom(options.apiKey, 'SEMANTIC_SCHOLAR_API_KEY') || undefined

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 10, 100)
      const params = new URLSearchParams({ query, limit: String(count), fields: FIELDS })
      if (options.year) params.set('year', options.year)
      if (options.fieldsOfStudy) params.set('fieldsOfStudy', options.fieldsOfStudy)
      if (options.openAccessPdf) params.set('openAccessPdf', '')
      const body = await requestJson({
        url: `${trimSlash(baseURL)}/paper/search?${params}`,
        method: 'GET',
        headers: { 'user-agent': politeUserAgent(), ...options.headers, ...(apiKey && { 'x-api-key': apiKey }) },
        provider: 'semanticscholar',
        ...transport(options, opts, apiKey),
        beforeAttempt: (signal) => pacer.wait(signal),
        hint: ({ status }) =>
          status === 429
            ? apiKey
              ? 'Semantic Scholar allows a key one request a second: search less often'
              : 'the keyless Semantic Scholar pool is busy: set SEMANTIC_SCHOLAR_API_KEY (free at https://www.semanticscholar.org/product/api)'
            : status === 403 || status === 401
              ? 'Semantic Scholar refused the key: check `apiKey` (SEMANTIC_SCHOLAR_API_KEY)'
              : undefined,
      })
      return parseSemanticScholarResponse(body).slice(0, count)
    },
  }
}
