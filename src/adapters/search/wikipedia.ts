/**
 * `wikipedia({ lang })`: a Wikipedia's own search (the MediaWiki Action API), then each hit's
 * REST page summary, whose lead-section extract is the snippet. Wikimedia asks clients to say
 * who they are in a `user-agent` and to keep requests in series: every `wikipedia()` in the
 * process shares one pacer. A summary that cannot be read leaves the search's own snippet.
 */
import { isAbortError, LaconicError, ProviderError } from '../../core/contracts/laconic-error.js'
import type { SearchOptions, SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { transport } from './options.js'
import { createPacer, type Pacer } from './pacer.js'
import { requestJson } from './request-json.js'
import { clampCount, field, list, stripMarkup } from './result-fields.js'
import { politeUserAgent, type ScholarlyOptions, trimSlash, webUrl } from './scholarly.js'

/** Options of `wikipedia()`: the language edition, a contact for the `user-agent`, and the endpoint. */
export interface WikipediaOptions extends ScholarlyOptions {
  /** The edition's language code, e.g. `'de'`, `'simple'`, `'zh-yue'`. @defaultValue 'en' */
  readonly lang?: string
  /** An address or URL for Wikimedia to reach you, added to the `user-agent` their policy asks for. */
  readonly contact?: string
  /** The wiki's address (a mirror, a loopback server in tests). @defaultValue `https://${lang}.wikipedia.org` */
  readonly baseURL?: string
  /** Read each hit's REST page summary for its lead section. @defaultValue true */
  readonly summaries?: boolean
}

const wikipediaPacer: Pacer = createPacer({ intervalMs: 100 })

const LANG = /^[a-z][a-z0-9]{1,11}(?:-[a-z0-9]{1,12}){0,2}$/

interface Hit {
  title: string
  snippet: string
}

/** The Action API's `query.search` hits (formatversion 2), their highlight markup removed. Total. */
export function parseWikipediaSearch(body: unknown): Hit[] {
  return list(field(field(body, 'query'), 'search')).flatMap((hit) => {
    const title = field(hit, 'title')
    const snippet = field(hit, 'snippet')
    if (typeof title !== 'string' || title.trim() === '') return []
    return [{ title: title.trim(), snippet: typeof snippet === 'string' ? stripMarkup(snippet).replace(/\s+/g, ' ').trim() : '' }]
  })
}

/** A REST page summary's title, page URL and extract; undefined for another shape. Total. */
export function parseWikipediaSummary(body: unknown): { title?: string; url?: string; extract: string } | undefined {
  const extract = field(body, 'extract')
  if (typeof extract !== 'string') return undefined
  const title = field(body, 'title')
  const url = webUrl(field(field(field(body, 'content_urls'), 'desktop'), 'page'))
  return { extract: extract.replace(/\s+/g, ' ').trim(), ...(typeof title === 'string' && title.trim() && { title: title.trim() }), ...(url && { url }) }
}

/** A `SearchProvider` for one Wikipedia edition: no key, a descriptive `user-agent`, requests paced. */
export function wikipedia(options: WikipediaOptions = {}): SearchProvider {
  const lang = (options.lang ?? 'en').toLowerCase()
  if (!LANG.test(lang)) {
    throw new LaconicError(`wikipedia: "${options.lang}" is not a Wikipedia language code`, {
      code: 'config',
      hint: "pass a code such as 'en', 'de' or 'zh-yue'",
    })
  }
  const { baseURL = `https://${lang}.wikipedia.org`, pacer = wikipediaPacer, summaries = true } = options
  const base = trimSlash(baseURL)
  const provider = lang === 'en' ? 'wikipedia' : `wikipedia:${lang}`
  const headers = { 'user-agent': politeUserAgent(options.contact), ...options.headers }
  const pageUrl = (title: string) => `${base}/wiki/${encodeURIComponent(title.replace(/ /g, '_'))}`

  async function summary(hit: Hit, opts: SearchOptions): Promise<SearchResult> {
    const fallback = { title: hit.title, url: pageUrl(hit.title), snippet: hit.snippet }
    try {
      const body = await requestJson({
        url: `${base}/api/rest_v1/page/summary/${encodeURIComponent(hit.title.replace(/ /g, '_'))}`,
        method: 'GET',
        headers,
        provider,
        ...transport(options, opts),
        beforeAttempt: (signal) => pacer.wait(signal),
      })
      const read = parseWikipediaSummary(body)
      if (!read) throw new ProviderError(`${provider}: the page summary has no extract`, { code: 'bad-response', provider })
      return { title: read.title ?? hit.title, url: read.url ?? fallback.url, snippet: read.extract || hit.snippet }
    } catch (error) {
      if (isAbortError(error)) throw error
      opts.onWarning?.({
        code: 'search-partial',
        message: `${provider}: the summary of "${hit.title}" could not be read, its search snippet is used: ${error instanceof Error ? error.message : String(error)}`,
      })
      return fallback
    }
  }

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const count = clampCount(opts.limit, 5, 20)
      const params = new URLSearchParams({
        action: 'query',
        list: 'search',
        srsearch: query,
        srlimit: String(count),
        srprop: 'snippet',
        format: 'json',
        formatversion: '2',
        utf8: '1',
      })
      const body = await requestJson({
        url: `${base}/w/api.php?${params}`,
        method: 'GET',
        headers,
        provider,
        ...transport(options, opts),
        beforeAttempt: (signal) => pacer.wait(signal),
      })
      const error = field(body, 'error')
      if (error !== undefined) {
        const info = field(error, 'info')
        const message = typeof info === 'string' ? info : String(field(error, 'code') ?? 'unknown error')
        throw new ProviderError(`${provider}: ${message}`, {
          code: 'bad-response',
          provider,
          providerMessage: message,
          hint: 'the MediaWiki API refused the search',
        })
      }
      const hits = parseWikipediaSearch(body).slice(0, count)
      if (!summaries) return hits.map((hit) => ({ title: hit.title, url: pageUrl(hit.title), snippet: hit.snippet }))
      return Promise.all(hits.map((hit) => summary(hit, opts)))
    },
  }
}
