import { costDelta } from '../contracts/run-cost.js'
import { describeWithCause, type ErrorInfo, isAbortError } from '../contracts/laconic-error.js'
import { limitFor, retryNotices, type RunShared } from './run-scope.js'
import { usageCollector } from './run-usage.js'
import type { PageWarning } from '../contracts/providers.js'
import { filterResults, runSourceRules, type SourceFilterPart } from './allowed-sources.js'
import type { StrategyEvent } from '../contracts/events.js'
import type { StrategyContext } from '../contracts/strategy-types.js'

/** A scope's searches (`runSearch`): each request gets `signal`; a failure is a warning and a result with its error. */
export function searchCalls(run: RunShared, signal: AbortSignal): Pick<StrategyContext, 'runSearch'> {
  const { options, newId, ledger } = run
  const limited = limitFor(run.limit.network, signal)
  const searchProvider = options.search
  const searchDollars = options.searchCost ?? searchProvider?.searchCost ?? 0
  const rules = runSourceRules(options.sources, run.input.sources)

  /** A failed search: remembered for the no-search check (see `modelCalls`). */
  const searchFailed = (info: ErrorInfo): ErrorInfo => {
    ledger.firstSearchFailure ??= info
    return info
  }

  return {
    async *runSearch(query, opts = {}) {
      const queryId = newId('q')
      const retries = retryNotices(`search "${query}"`)
      // What the provider worked around (a corpus file it could not read), told with the result.
      const worked: StrategyEvent[] = []
      const onWarning = (warning: PageWarning) => worked.push({ type: 'warning', code: warning.code, message: warning.message, queryId })
      // What the search spends on calls of its own (a knowledge base's embedding, its reranker).
      const usage = usageCollector(run)
      const limit = opts.limit ?? options.searchLimit ?? 5
      // What the provider applied of the source rules in its own request (told by the provider).
      const applied = new Set<SourceFilterPart>()
      const sourceOptions = rules
        ? {
            sources: rules.filter,
            onSourcesApplied: (parts: readonly SourceFilterPart[]) => {
              for (const part of parts) applied.add(part)
            },
          }
        : {}
      // Start the search before announcing it, so it is in flight while consumers see `query`.
      const pending = searchProvider
        ? limited(() => searchProvider.search(query, { signal, limit, onRetry: retries.onRetry, onUsage: usage.onUsage, onWarning, ...sourceOptions }))
        : undefined
      pending?.catch(() => undefined)
      yield {
        type: 'query',
        queryId,
        query,
        ...(opts.parentId !== undefined ? { parentId: opts.parentId } : {}),
        ...(opts.depth !== undefined ? { depth: opts.depth } : {}),
      }
      if (!pending) {
        const error = searchFailed({ message: 'no search provider configured: pass `search` to createAgent', code: 'config' })
        yield { type: 'warning', ...error, queryId }
        yield { type: 'result', queryId, results: [], error }
        return { queryId, results: [], error }
      }
      try {
        const returned = await pending
        // The rules apply to the results whatever the provider did: a provider may filter loosely.
        const { kept: served, removed: sourcesFiltered } = rules ? filterResults(rules, returned, applied) : { kept: returned, removed: 0 }
        if (rules?.after || rules?.before) {
          const datesApplied = applied.has('dates')
          for (const { url, published, meta } of served) run.resultDates.set(url, { published, meta, datesApplied })
        }
        yield* retries.pending.splice(0)
        yield* worked.splice(0)
        const cached = returned.length > 0 && returned.every((result) => result.cached === true)
        // The mark has done its job: strategies and consumers see plain results, the event says `cached`.
        const results = served.map(({ cached: _mark, ...result }) => result)
        ledger.searchesOk++
        ledger.dollars += cached ? 0 : searchDollars
        yield {
          type: 'result',
          queryId,
          results: results.map((r) => ({ ...r })),
          ...(cached ? { cached } : {}),
          ...(sourcesFiltered ? { sourcesFiltered } : {}),
        }
        yield { type: 'cost', delta: costDelta({ search: cached ? 0 : searchDollars, searches: cached ? 0 : 1 }) }
        yield* usage.take()
        if (results.length === 0) {
          const why = sourcesFiltered ? `: the sources rules removed all ${sourcesFiltered}` : ''
          yield { type: 'warning', code: 'search-empty', message: `no results for "${query}"${why}`, queryId }
        }
        return { queryId, results }
      } catch (error) {
        if (signal.aborted || isAbortError(error)) {
          // Cut short (an early stop, or the run's end): the query still gets its one result,
          // so consumers can close what they opened for it.
          yield { type: 'result', queryId, results: [], error: { code: 'aborted', message: `search "${query}" was aborted` } }
          // Once the run is aborted its runtime reads no more events, and counts the usage itself.
          if (!run.runSignal.aborted) yield* usage.take()
          throw error
        }
        yield* retries.pending.splice(0)
        yield* worked.splice(0)
        const described = describeWithCause(error)
        const info = searchFailed({
          code: described.code === 'error' ? 'search-failed' : described.code,
          message: `search "${query}" failed: ${described.message}`,
          ...(described.cause !== undefined ? { cause: described.cause } : {}),
        })
        ledger.dollars += searchDollars
        yield { type: 'warning', ...info, queryId }
        yield { type: 'result', queryId, results: [], error: info }
        yield { type: 'cost', delta: costDelta({ search: searchDollars, searches: 1 }) }
        yield* usage.take()
        return { queryId, results: [], error: info }
      }
    },
  }
}
