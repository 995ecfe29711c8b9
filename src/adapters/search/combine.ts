/**
 * `combineSearch([...providers])`: one query to several providers at once, their rankings
 * fused by reciprocal rank (the knowledge base's mechanism, src/core/rank-fusion.ts) and each
 * work kept once: results are the same work when their canonical URLs (`normalizeUrl`), DOIs or
 * arXiv ids match, and the one kept takes the facts the others add. A provider that fails is a
 * warning and the others' results stand; when all fail, the search fails with the first error.
 */
import { isAbortError, LaconicError, ProviderError } from '../../core/contracts/laconic-error.js'
import { normalizeUrl } from '../../core/util/urls.js'
import type { SourceFilterPart } from '../../core/run/allowed-sources.js'
import type { SearchProvider, SearchResult } from '../../core/contracts/providers.js'
import { reciprocalRankFusion } from '../../documents/rank-fusion.js'

/** Options of `combineSearch()`: how much each provider's ranking counts. */
export interface CombineSearchOptions {
  /**
   * One weight per provider, in their order (a missing one is 1): a provider's result at rank
   * r adds `weight / (60 + r)` to its score.
   */
  readonly weights?: readonly number[]
}

/** The identities of a result: its canonical URL, and its DOI, arXiv id and PDF when it has them. */
function identities(result: SearchResult): string[] {
  const keys = [`url:${normalizeUrl(result.url)}`]
  if (result.meta?.doi) keys.push(`doi:${result.meta.doi.toLowerCase()}`)
  if (result.meta?.arxivId) keys.push(`arxiv:${result.meta.arxivId.toLowerCase()}`)
  if (result.meta?.pdfUrl) keys.push(`url:${normalizeUrl(result.meta.pdfUrl)}`)
  return keys
}

/** Groups results sharing any identity (union-find): each group is one work, named by its smallest key. */
function workKeys(lists: readonly (readonly SearchResult[])[]): Map<SearchResult, string> {
  const parent = new Map<string, string>()
  const find = (key: string): string => {
    let root = key
    while (parent.get(root) !== root) root = parent.get(root) ?? root
    parent.set(key, root)
    return root
  }
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)]
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb)
  }
  const keysOf = new Map<SearchResult, string[]>()
  for (const result of lists.flat()) {
    const keys = identities(result)
    keysOf.set(result, keys)
    for (const key of keys) if (!parent.has(key)) parent.set(key, key)
    for (const key of keys.slice(1)) union(keys[0] as string, key)
  }
  return new Map([...keysOf].map(([result, keys]) => [result, find(keys[0] as string)]))
}

/**
 * One result for a work: its best-ranked result, its missing facts (and an empty snippet)
 * filled from the others, best-ranked first. Ties are broken by the results themselves, never
 * by the order of the providers.
 */
function merged(results: readonly { result: SearchResult; rank: number }[]): SearchResult {
  const order = (entry: { result: SearchResult; rank: number }) => [normalizeUrl(entry.result.url), entry.result.url, JSON.stringify(entry.result)]
  const sorted = [...results].sort((a, b) => a.rank - b.rank || compareLists(order(a), order(b)))
  let result = (sorted[0] as { result: SearchResult }).result
  for (const { result: other } of sorted.slice(1)) {
    if (!result.snippet && other.snippet) result = { ...result, snippet: other.snippet }
    if (other.meta) result = { ...result, meta: { ...other.meta, ...result.meta } }
  }
  return result
}

function compareLists(a: readonly string[], b: readonly string[]): number {
  for (const [index, value] of a.entries()) {
    const other = b[index] as string
    if (value !== other) return value < other ? -1 : 1
  }
  return 0
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A `SearchProvider` that asks every provider at once and fuses their rankings. */
export function combineSearch(providers: readonly SearchProvider[], options: CombineSearchOptions = {}): SearchProvider {
  if (providers.length === 0) throw new LaconicError('combineSearch: no providers', { code: 'config', hint: 'pass at least one search provider' })
  const weights = providers.map((_, index) => options.weights?.[index] ?? 1)
  if (weights.some((weight) => !Number.isFinite(weight) || weight < 0)) {
    throw new LaconicError('combineSearch: a weight is negative or not a number', { code: 'config', hint: 'weights are finite numbers >= 0, one per provider' })
  }
  const costs = providers.map((provider) => provider.searchCost).filter((cost): cost is number => cost !== undefined)

  return {
    // Every search calls every provider.
    ...(costs.length > 0 && { searchCost: costs.reduce((sum, cost) => sum + cost, 0) }),
    async search(query, opts = {}) {
      if (!query.trim()) return []
      // What each provider applied of the run's source rules: the run is told only what all of them applied.
      const applied = providers.map(() => new Set<SourceFilterPart>())
      const settled = await Promise.allSettled(
        providers.map((provider, index) =>
          provider.search(
            query,
            opts.sources
              ? {
                  ...opts,
                  onSourcesApplied: (parts) => {
                    for (const part of parts) applied[index]!.add(part)
                  },
                }
              : opts,
          ),
        ),
      )
      if (opts.sources && opts.onSourcesApplied) {
        const common = (['domains', 'dates'] as const).filter((part) => applied.every((parts) => parts.has(part)))
        if (common.length) opts.onSourcesApplied(common)
      }
      // Stopped, not failed: the run is ending, nothing to degrade to.
      const aborted = settled.find(isAbortRejection)
      if (aborted) throw aborted.reason
      const lists: SearchResult[][] = []
      const listWeights: number[] = []
      const failures: { index: number; error: unknown }[] = []
      for (const [index, outcome] of settled.entries()) {
        if (outcome.status === 'fulfilled') {
          lists.push(outcome.value)
          listWeights.push(weights[index] as number)
        } else failures.push({ index, error: outcome.reason })
      }
      if (lists.length === 0) throw failures[0]?.error
      for (const { index, error } of failures) {
        const name = error instanceof ProviderError ? error.provider : `provider ${index + 1}`
        opts.onWarning?.({ code: 'search-partial', message: `${name} failed, the other providers' results are used: ${describe(error)}` })
      }
      const work = workKeys(lists)
      const keyOf = (result: SearchResult) => work.get(result) as string
      // Each provider counts a work once, at its best rank (its other results of the work still lend their facts).
      const deduped = lists.map((list) => {
        const seen = new Set<string>()
        return list.filter((result) => !seen.has(keyOf(result)) && seen.add(keyOf(result)))
      })
      const byWork = new Map<string, { result: SearchResult; rank: number }[]>()
      for (const list of lists) {
        for (const [rank, result] of list.entries()) byWork.set(keyOf(result), [...(byWork.get(keyOf(result)) ?? []), { result, rank }])
      }
      const bestRank = (key: string) => Math.min(...(byWork.get(key) ?? []).map(({ rank }) => rank))
      const fused = reciprocalRankFusion(deduped, keyOf, { weights: listWeights })
        .map(({ item, score }) => ({ key: keyOf(item), score }))
        // Ties go to the better single rank, then to the work's key: the order of the providers never decides.
        .sort((a, b) => b.score - a.score || bestRank(a.key) - bestRank(b.key) || compareLists([a.key], [b.key]))
        .map(({ key }) => merged(byWork.get(key) ?? []))
      return opts.limit === undefined ? fused : fused.slice(0, Math.max(0, opts.limit))
    },
  }
}

function isAbortRejection(outcome: PromiseSettledResult<unknown>): outcome is PromiseRejectedResult {
  return outcome.status === 'rejected' && isAbortError(outcome.reason)
}
