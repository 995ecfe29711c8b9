import { costDelta } from '../contracts/run-cost.js'
import { describeError, isAbortError } from '../contracts/laconic-error.js'
import { limitFor, retryNotices, type RunShared } from './run-scope.js'
import { pageDateAllowed, runSourceRules, type SourceRules, urlAllowed } from './allowed-sources.js'
import type { StrategyContext } from '../contracts/strategy-types.js'
import type { FetchedPage } from '../contracts/providers.js'

/** A scope's page reads (`readPage`): each request gets `signal`; a failure is a warning and no page. */
export function pageReads(run: RunShared, signal: AbortSignal): Pick<StrategyContext, 'readPage'> {
  const { options } = run
  const limited = limitFor(run.limit.network, signal)
  const rules = runSourceRules(options.sources, run.input.sources)
  const denied = function* (url: string, queryId: string | undefined) {
    yield {
      type: 'warning' as const,
      code: 'source-denied' as const,
      message: `${url} is not read: the run's sources rules leave its domain out`,
      ...(queryId !== undefined ? { queryId } : {}),
    }
  }
  /** Why a page read is left out for its date, or undefined when its date (or lack of one) fits the rules. */
  const outOfDates = (requested: string, page: FetchedPage): string | undefined => {
    if (!rules || (!rules.after && !rules.before)) return undefined
    const fromResult = run.resultDates.get(requested) ?? run.resultDates.get(page.url)
    if (pageDateAllowed(rules, page.published, fromResult)) return undefined
    const said = page.published ?? fromResult?.published ?? (fromResult?.meta?.year !== undefined ? String(fromResult.meta.year) : undefined)
    return said !== undefined
      ? `it was published ${said}, outside the run's sources dates (${window(rules)})`
      : `it gives no published date, and the run's sources rules keep only dated sources (strictDates)`
  }
  const rethrowIfAborted = (error: unknown): void => {
    if (signal.aborted || isAbortError(error)) throw error
  }
  return {
    async *readPage(url, opts = {}) {
      const fetcher = options.fetch
      if (!fetcher) return undefined
      // Refused before any request is made.
      if (rules && !urlAllowed(rules, url)) {
        yield* denied(url, opts.queryId)
        return undefined
      }
      const retries = retryNotices(`fetch ${url}`)
      try {
        const page = await limited(() => fetcher.fetch(url, { signal, onRetry: retries.onRetry }))
        yield* retries.pending.splice(0)
        // A redirect to a domain the rules leave out: the page is dropped (the request was made, so it counts).
        if (rules && page.url && !urlAllowed(rules, page.url)) {
          yield* denied(page.url, opts.queryId)
          yield { type: 'cost', delta: costDelta({ fetches: page.cached === true ? 0 : 1 }) }
          return undefined
        }
        // A page that says it was published outside the rules' dates: dropped the same way.
        const leftOut = outOfDates(url, page)
        if (leftOut) {
          yield {
            type: 'warning',
            code: 'source-denied',
            message: `${page.url || url} is not used: ${leftOut}`,
            ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          }
          yield { type: 'cost', delta: costDelta({ fetches: page.cached === true ? 0 : 1 }) }
          return undefined
        }
        yield {
          type: 'page',
          url: page.url || url,
          chars: page.text.length,
          ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          ...(page.title ? { title: page.title } : {}),
          ...(page.kind ? { kind: page.kind } : {}),
          ...(page.pages !== undefined ? { pages: page.pages } : {}),
        }
        yield { type: 'cost', delta: costDelta({ fetches: page.cached === true ? 0 : 1 }) }
        for (const warning of page.warnings ?? []) {
          yield {
            type: 'warning',
            code: warning.code,
            message: `${page.url || url}: ${warning.message}`,
            ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          }
        }
        if (page.fallback) {
          yield {
            type: 'warning',
            code: 'extraction-fallback',
            message: `${page.url || url} was read by a fallback: ${page.fallback}`,
            ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          }
        }
        return page
      } catch (error) {
        rethrowIfAborted(error)
        yield* retries.pending.splice(0)
        const info = describeError(error)
        yield {
          type: 'warning',
          code: info.code === 'error' ? 'fetch-failed' : info.code,
          message: `reading ${url} failed: ${info.message}`,
          ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
        }
        // Counted like a failed search: the attempt was made (and may have been paid for).
        yield { type: 'cost', delta: costDelta({ fetches: 1 }) }
        return undefined
      }
    },
  }
}

/** The rules' date window in words, both days included: `from 2024-01-01 to 2024-12-31`. */
function window(rules: SourceRules): string {
  return [rules.after ? `from ${rules.after}` : '', rules.before ? `to ${rules.before}` : ''].filter(Boolean).join(' ')
}
