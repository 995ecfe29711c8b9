/**
 * `duckduckgo()`: keyless web search by posting to DuckDuckGo's HTML (or lite) endpoint
 * and reading the page. Throttling is an error, never an empty result list, so a run
 * does not conclude "nothing exists" when it was only blocked.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { attemptRequest, callTimeouts, withRetries } from '../http/index.js'
import type { HttpResponse } from '../http/index.js'
import { parseDuckDuckGoPage } from './duckduckgo-parse.js'
import { duckDuckGoPacer } from './pacer.js'
import type { Pacer } from './pacer.js'
import type { HttpSearchOptions } from './options.js'

/** Options of `duckduckgo()`: the endpoint, region and time filters, and the pacing of requests. */
export interface DuckDuckGoOptions extends HttpSearchOptions {
  /** The HTML or lite endpoint (both layouts are understood). @defaultValue 'https://html.duckduckgo.com/html/' */
  readonly endpoint?: string
  /** Region code sent as `kl`, e.g. `'us-en'`, `'de-de'`. */
  readonly region?: string
  /** Only results from the last day, week, month or year (`df`). */
  readonly timeRange?: 'd' | 'w' | 'm' | 'y'
  /** Spaces requests out. @defaultValue one shared pacer per process, about 1 request per second */
  readonly pacer?: Pacer
}

const PAGE_BYTES = 2_000_000

function throttled(status: number, cause?: unknown): ProviderError {
  return new ProviderError(`duckduckgo: throttled (HTTP ${status}${status === 200 ? ', a page without results' : ''})`, {
    code: 'rate-limit',
    provider: 'duckduckgo',
    status,
    retryable: true,
    hint: 'DuckDuckGo is limiting requests from this address; wait a few minutes, search less often, or use brave, tavily or searxng',
    cause,
  })
}

/** A `SearchProvider` reading DuckDuckGo's HTML results: no key needed, requests paced politely. */
export function duckduckgo(options: DuckDuckGoOptions = {}): SearchProvider {
  const {
    endpoint = 'https://html.duckduckgo.com/html/',
    timeoutMs = 15_000,
    maxRetries = 1,
    backoff = { initialMs: 2000, maxMs: 8000 },
    pacer = duckDuckGoPacer,
  } = options

  async function attempt(query: string, signal: AbortSignal | undefined): Promise<SearchResult[]> {
    await pacer.wait(signal)
    const form = new URLSearchParams({ q: query })
    if (options.region) form.set('kl', options.region)
    if (options.timeRange) form.set('df', options.timeRange)
    let response: HttpResponse
    try {
      response = await attemptRequest({
        url: endpoint,
        method: 'POST',
        body: form,
        headers: { accept: 'text/html', ...options.headers },
        provider: 'duckduckgo',
        signal,
        timeouts: callTimeouts(timeoutMs),
        fetch: options.fetch,
      })
    } catch (error) {
      if (error instanceof ProviderError && (error.status === 403 || error.status === 429)) throw throttled(error.status, error)
      throw error
    }
    if (response.status === 202) {
      response.cancel()
      throw throttled(202)
    }
    const page = await parseDuckDuckGoPage(await response.text({ maxBytes: PAGE_BYTES }), { signal })
    if (page.kind === 'blocked') throw throttled(response.status)
    if (page.kind === 'unreadable') {
      throw new ProviderError(`duckduckgo: the results page could not be read (${page.reason})`, {
        code: 'bad-response',
        provider: 'duckduckgo',
        status: response.status,
        retryable: false,
        hint: 'the page was not a normal results page (hostile or broken markup); try again later or use another search provider',
      })
    }
    return page.kind === 'results' ? page.results : []
  }

  return {
    searchCost: 0,
    async search(query, opts = {}) {
      // Nothing to look up: send no request and spend no rate-limit budget.
      if (!query.trim()) return []
      const results = await withRetries({ maxRetries, backoff, signal: opts.signal, onRetry: opts.onRetry }, () => attempt(query, opts.signal))
      return opts.limit === undefined ? results : results.slice(0, Math.max(0, opts.limit))
    },
  }
}
