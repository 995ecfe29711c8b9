/**
 * `pubmed()`: NCBI's E-utilities, esearch (the ids, by relevance) then esummary (their
 * titles, authors and journals), both read with an XML parser. NCBI asks every caller to name
 * its tool and give an email, and allows three requests a second without a key, ten with one:
 * every `pubmed()` in the process keeps to that rate. esummary carries no abstract, so a
 * result's snippet is its citation; the PubMed page it links to has the abstract.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import type { HttpRequestOptions } from '../http/index.js'
import { callSourceRules, compactDay } from './source-rules.js'
import { transport } from './options.js'
import { createPacer, type Pacer } from './pacer.js'
import { badResponse, requestText } from './request-json.js'
import { clampCount, keyFrom } from './result-fields.js'
import { politeUserAgent, type ScholarlyOptions, trimSlash } from './scholarly.js'
import { readXmlAnswer, UNREADABLE_HINT } from './scholarly-parse.js'

/** Options of `pubmed()`: NCBI's etiquette (`tool`, `email`, `apiKey`) and the endpoint. */
export interface PubMedOptions extends ScholarlyOptions {
  /** Sent as `api_key`, which raises NCBI's limit from 3 to 10 requests a second. @defaultValue the `NCBI_API_KEY` environment variable */
  readonly apiKey?: string
  /** Sent as `email`: NCBI's contact if a caller misbehaves. @defaultValue the `NCBI_EMAIL` environment variable */
  readonly email?: string
  /** Sent as `tool`. @defaultValue 'laconic-research' */
  readonly tool?: string
  /** The API's address (a mirror, a proxy, a loopback server in tests). @defaultValue 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils' */
  readonly baseURL?: string
}

/** NCBI's limits: 3 requests a second without a key, 10 with one, per process. */
const keylessPacer: Pacer = createPacer({ intervalMs: 334 })
const keyedPacer: Pacer = createPacer({ intervalMs: 100 })

const MAX_XML_BYTES = 2_000_000

/** Results in the order esearch ranked their ids (esummary need not keep it). */
function inOrderOf(ids: readonly string[], results: SearchResult[]): SearchResult[] {
  const position = (result: SearchResult) => {
    const at = ids.indexOf(/\/(\d+)\/$/.exec(result.url)?.[1] ?? '')
    return at === -1 ? ids.length : at
  }
  return [...results].sort((a, b) => position(a) - position(b))
}

function refused(message: string, status: number): ProviderError {
  return new ProviderError(`pubmed: ${message}`, {
    code: 'bad-response',
    provider: 'pubmed',
    status,
    providerMessage: message,
    hint: 'NCBI refused the query: see https://pubmed.ncbi.nlm.nih.gov/help/#search-tags for its syntax',
  })
}

/** A `SearchProvider` for PubMed through E-utilities; a key (`NCBI_API_KEY`) raises the rate limit. */
export function pubmed(options: PubMedOptions = {}): SearchProvider {
  const { baseURL = 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils', tool = 'laconic-research' } = options
  const apiKey = keyFrom(options.apiKey, 'NCBI_API_KEY') || undefined
  const email = keyFrom(options.email, 'NCBI_EMAIL') || undefined
  const pacer = options.pacer ?? (apiKey ? keyedPacer : keylessPacer)

  function etiquette(params: URLSearchParams): URLSearchParams {
    params.set('tool', tool)
    if (email) params.set('email', email)
    if (apiKey) params.set('api_key', apiKey)
    return params
  }

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 10, 100)
      const common = (url: string): HttpRequestOptions => ({
        url,
        method: 'GET',
        headers: { accept: 'application/xml', 'user-agent': politeUserAgent(email), ...options.headers },
        provider: 'pubmed',
        ...transport(options, opts, apiKey),
        beforeAttempt: (signal) => pacer.wait(signal),
        hint: ({ status }) => (status === 429 ? `NCBI allows ${apiKey ? 10 : 3} requests a second${apiKey ? '' : ': set NCBI_API_KEY for 10'}` : undefined),
      })
      const searchParams = new URLSearchParams({ db: 'pubmed', term: query, retmax: String(count), sort: 'relevance' })
      // The run's date window by publication date; E-utilities needs both ends.
      const rules = callSourceRules(opts)
      const dated = rules !== undefined && (rules.after !== undefined || rules.before !== undefined)
      if (dated) {
        searchParams.set('datetype', 'pdat')
        searchParams.set('mindate', compactDay(rules.after ?? '1000-01-01', '/'))
        searchParams.set('maxdate', compactDay(rules.before ?? '3000-12-31', '/'))
      }
      const searchRequest = common(`${trimSlash(baseURL)}/esearch.fcgi?${etiquette(searchParams)}`)
      const found = await requestText(searchRequest, MAX_XML_BYTES)
      const answer = await readXmlAnswer('esearch', found.text, opts.signal)
      if (answer.kind === 'not-xml') throw badResponse(searchRequest, found.status, found.text, 'the esearch response is not E-utilities XML')
      if (answer.kind === 'unreadable')
        throw badResponse(searchRequest, found.status, found.text, `the esearch response could not be read (${answer.reason})`, UNREADABLE_HINT)
      if (answer.kind === 'error') throw refused(answer.message, found.status)
      if (dated) opts.onSourcesApplied?.(['dates'])
      if (answer.ids.length === 0) return []
      const ids = answer.ids.slice(0, count)
      const summaryRequest = common(`${trimSlash(baseURL)}/esummary.fcgi?${etiquette(new URLSearchParams({ db: 'pubmed', id: ids.join(',') }))}`)
      const summaries = await requestText(summaryRequest, MAX_XML_BYTES)
      const summary = await readXmlAnswer('esummary', summaries.text, opts.signal)
      if (summary.kind === 'not-xml') throw badResponse(summaryRequest, summaries.status, summaries.text, 'the esummary response is not E-utilities XML')
      if (summary.kind === 'unreadable')
        throw badResponse(summaryRequest, summaries.status, summaries.text, `the esummary response could not be read (${summary.reason})`, UNREADABLE_HINT)
      if (summary.kind === 'error') throw refused(summary.message, summaries.status)
      return inOrderOf(ids, summary.results).slice(0, count)
    },
  }
}
