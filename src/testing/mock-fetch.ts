import { ProviderError } from '../core/contracts/laconic-error.js'
import type { FetchOptions, FetchProvider, FetchedPage } from '../core/contracts/providers.js'
import { InFlight, sleep } from './sleep.js'

/** Options of `mockFetch()`: the pages by URL, and an optional delay per call. */
export interface MockFetchOptions {
  /** Page text, or the page itself (title and text, or a document's `kind`, `pages` and `pageStarts` too), by URL. */
  pages: Readonly<Record<string, string | Omit<FetchedPage, 'url'>>>
  delayMs?: number
}

/** A `FetchProvider` serving fixed pages, that records every URL and signal it was given. */
export interface MockFetch extends FetchProvider {
  readonly calls: string[]
  readonly signals: (AbortSignal | undefined)[]
  readonly inFlight: InFlight
}

/** A fetch provider over in-memory pages; an unknown URL fails with a 404 `ProviderError`. */
export function mockFetch(options: MockFetchOptions): MockFetch {
  const calls: string[] = []
  const signals: (AbortSignal | undefined)[] = []
  const inFlight = new InFlight()
  return {
    calls,
    signals,
    inFlight,
    fetch(url: string, opts: FetchOptions = {}) {
      calls.push(url)
      signals.push(opts.signal)
      return inFlight.track(async (): Promise<FetchedPage> => {
        await sleep(options.delayMs ?? 0, opts.signal)
        const page = options.pages[url]
        if (page === undefined) throw new ProviderError(`no page at ${url}`, { code: 'not-found', provider: 'mock', status: 404, url })
        return typeof page === 'string' ? { url, text: page } : { url, ...page }
      })
    },
  }
}
