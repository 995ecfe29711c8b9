/**
 * `openAlex()`: OpenAlex's works search. OpenAlex asks for a contact address (`mailto`, its
 * "polite pool") and at most ten requests a second; an API key, where one is given, is sent
 * too. The abstract, which OpenAlex ships as an inverted index, is put back in word order.
 */
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { transport } from './options.js'
import { callSourceRules } from './source-rules.js'
import { createPacer, type Pacer } from './pacer.js'
import { requestJson } from './request-json.js'
import { clampCount, field, keyFrom, list } from './result-fields.js'
import { doiOf, MAX_AUTHORS, metaOf, politeUserAgent, type ScholarlyOptions, scholarlyResult, trimSlash, webUrl, yearOf } from './scholarly.js'

/** Options of `openAlex()`: the contact address, an optional key, and the endpoint. */
export interface OpenAlexOptions extends ScholarlyOptions {
  /** Sent as `mailto` (OpenAlex's polite pool). @defaultValue the `OPENALEX_MAILTO` environment variable */
  readonly mailto?: string
  /** Sent as `api_key`. @defaultValue the `OPENALEX_API_KEY` environment variable */
  readonly apiKey?: string
  /** The API's address (a mirror, a proxy, a loopback server in tests). @defaultValue 'https://api.openalex.org' */
  readonly baseURL?: string
  /** An OpenAlex filter, e.g. `'is_oa:true,from_publication_date:2020-01-01'`. */
  readonly filter?: string
}

/** OpenAlex's limit: ten requests a second. */
const openAlexPacer: Pacer = createPacer({ intervalMs: 100 })

/** The fields a result needs: a work is ~10 kB whole (its references, concepts, counts by year). */
const SELECT = 'id,doi,display_name,publication_year,publication_date,authorships,primary_location,best_oa_location,abstract_inverted_index'

/** A hostile index could claim a word at position 10^9: positions past this are ignored. */
const MAX_ABSTRACT_WORDS = 5_000

/** The abstract from OpenAlex's inverted index (`{ word: [positions] }`). Total. */
export function abstractFromIndex(index: unknown): string {
  if (typeof index !== 'object' || index === null || Array.isArray(index)) return ''
  const words: string[] = []
  for (const [word, positions] of Object.entries(index)) {
    for (const position of list(positions)) {
      if (typeof position === 'number' && Number.isInteger(position) && position >= 0 && position < MAX_ABSTRACT_WORDS) words[position] = word
    }
  }
  return words
    .filter((word) => word !== undefined)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
}

function workResult(work: unknown): SearchResult | undefined {
  const primary = field(work, 'primary_location')
  const open = field(work, 'best_oa_location')
  const pdfUrl = webUrl(field(open, 'pdf_url')) ?? webUrl(field(primary, 'pdf_url'))
  const doi = doiOf(field(work, 'doi'))
  const page = webUrl(field(primary, 'landing_page_url')) ?? (doi ? `https://doi.org/${doi}` : webUrl(field(work, 'id')))
  const url = pdfUrl ?? page
  if (!url) return undefined
  const title = field(work, 'display_name')
  const meta = metaOf({
    authors: list(field(work, 'authorships'))
      .map((authorship) => field(field(authorship, 'author'), 'display_name'))
      .filter((name): name is string => typeof name === 'string' && name.trim() !== '')
      .slice(0, MAX_AUTHORS),
    year: yearOf(field(work, 'publication_year')),
    venue: stringOf(field(field(primary, 'source'), 'display_name')),
    doi,
    pdfUrl,
  })
  const result: SearchResult = { title: stringOf(title) ?? url, url, snippet: abstractFromIndex(field(work, 'abstract_inverted_index')) }
  const published = field(work, 'publication_date')
  if (typeof published === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(published)) result.published = published
  const score = field(work, 'relevance_score')
  if (typeof score === 'number' && Number.isFinite(score)) result.score = score
  return scholarlyResult(result, meta)
}

function stringOf(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : ''
  return text || undefined
}

/** OpenAlex's `results` as search results. Total: any other shape gives `[]`. */
export function parseOpenAlexResponse(body: unknown): SearchResult[] {
  return list(field(body, 'results')).flatMap((work) => workResult(work) ?? [])
}

/** A `SearchProvider` for OpenAlex works: no key needed, a contact address recommended. */
export function openAlex(options: OpenAlexOptions = {}): SearchProvider {
  const { baseURL = 'https://api.openalex.org', pacer = openAlexPacer } = options
  const mailto = keyFrom(options.mailto, 'OPENALEX_MAILTO')
  const apiKey = keyFrom(options.apiKey, 'OPENALEX_API_KEY')

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 10, 50)
      const params = new URLSearchParams({ search: query, 'per-page': String(count), select: SELECT })
      // The run's date window as OpenAlex filters, beside the user's own.
      const rules = callSourceRules(opts)
      const dates = [...(rules?.after ? [`from_publication_date:${rules.after}`] : []), ...(rules?.before ? [`to_publication_date:${rules.before}`] : [])]
      const filter = [options.filter, ...dates].filter(Boolean).join(',')
      if (filter) params.set('filter', filter)
      if (mailto) params.set('mailto', mailto)
      if (apiKey) params.set('api_key', apiKey)
      const body = await requestJson({
        url: `${trimSlash(baseURL)}/works?${params}`,
        method: 'GET',
        headers: { 'user-agent': politeUserAgent(mailto && `mailto:${mailto}`), ...options.headers },
        provider: 'openalex',
        ...transport(options, opts, apiKey),
        beforeAttempt: (signal) => pacer.wait(signal),
        hint: ({ status }) =>
          status === 429
            ? 'OpenAlex rate limit (10 requests a second, a daily budget): set OPENALEX_MAILTO for the polite pool, or OPENALEX_API_KEY'
            : status === 403 || status === 401
              ? 'OpenAlex refused the request: check `apiKey` (OPENALEX_API_KEY)'
              : undefined,
      })
      if (dates.length) opts.onSourcesApplied?.(['dates'])
      return parseOpenAlexResponse(body).slice(0, count)
    },
  }
}
