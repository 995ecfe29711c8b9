import { ProviderError } from '../core/contracts/laconic-error.js'
import type { SearchOptions, SearchProvider, SearchResult } from '../core/contracts/providers.js'
import { normalizeText } from '../core/util/text.js'
import { InFlight, sleep } from './sleep.js'

/** Options of `mockSearch()`: the results by query (or a corpus to search), failures, and delays. */
export interface MockSearchOptions {
  /**
   * Results by exact query, a function of the query, or an in-memory corpus searched by the
   * words of the query (most matching words first).
   */
  results?:
    | Readonly<Record<string, readonly SearchResult[]>>
    | ((query: string, callIndex: number) => readonly SearchResult[] | Promise<readonly SearchResult[]>)
  corpus?: readonly SearchResult[]
  /** Per-call latency (abortable). */
  delayMs?: number | ((query: string) => number)
  /** Return an error to make that call fail. */
  fail?: (query: string, callIndex: number) => Error | undefined
  searchCost?: number
}

/** A `SearchProvider` giving fixed results, that records every query and signal it was given. */
export interface MockSearch extends SearchProvider {
  readonly calls: string[]
  /** The signal of every call, to check they were aborted. */
  readonly signals: (AbortSignal | undefined)[]
  readonly inFlight: InFlight
}

function searchCorpus(corpus: readonly SearchResult[], query: string, limit: number): SearchResult[] {
  const words = normalizeText(query)
    .split(' ')
    .filter((w) => w.length > 2)
  return corpus
    .map((doc) => {
      const haystack = normalizeText(`${doc.title} ${doc.snippet}`)
      return { doc, score: words.filter((w) => haystack.includes(w)).length }
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((hit) => ({ ...hit.doc, score: hit.score }))
}

/** A search provider over in-memory results, with latency, failures and concurrency tracking. */
export function mockSearch(options: MockSearchOptions = {}): MockSearch {
  const calls: string[] = []
  const signals: (AbortSignal | undefined)[] = []
  const inFlight = new InFlight()
  return {
    calls,
    signals,
    inFlight,
    ...(options.searchCost !== undefined ? { searchCost: options.searchCost } : {}),
    search(query: string, opts: SearchOptions = {}) {
      const index = calls.length
      calls.push(query)
      signals.push(opts.signal)
      return inFlight.track(async () => {
        const delay = typeof options.delayMs === 'function' ? options.delayMs(query) : (options.delayMs ?? 0)
        await sleep(delay, opts.signal)
        const failure = options.fail?.(query, index)
        if (failure) throw failure
        const limit = opts.limit ?? 10
        const { results, corpus } = options
        if (typeof results === 'function') return [...(await results(query, index))].slice(0, limit)
        if (results) return [...(results[query] ?? [])].slice(0, limit)
        if (corpus) return searchCorpus(corpus, query, limit)
        return []
      })
    },
  }
}

/** A retryable `ProviderError` like a search backend's 503, for scripting failures in tests. */
export function searchFailure(message = 'search backend unavailable'): ProviderError {
  return new ProviderError(message, { code: 'http', provider: 'mock', status: 503, retryable: true })
}
