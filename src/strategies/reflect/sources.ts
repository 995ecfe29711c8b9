import type { SearchResult } from '../../core/contracts/providers.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { isAdUrl, normalizeUrl } from '../../core/util/urls.js'

/**
 * The results a prompt shows: the best of every query first (rank 1 of each query, in query
 * order, then rank 2, ...), deduplicated by normalised URL, ads dropped, snippets cut. The order
 * depends only on the queries and their results, never on which search answered first.
 */
export function interleaveResults(perQuery: readonly (readonly SearchResult[])[], max: number, snippetChars: number): SearchResult[] {
  const seen = new Set<string>()
  const out: SearchResult[] = []
  const depth = Math.max(0, ...perQuery.map((results) => results.length))
  for (let rank = 0; rank < depth && out.length < max; rank++) {
    for (const results of perQuery) {
      const result = results[rank]
      if (!result?.url || isAdUrl(result.url)) continue
      const key = normalizeUrl(result.url)
      if (seen.has(key)) continue
      seen.add(key)
      out.push({ title: result.title, url: result.url, snippet: truncateAtSentence(result.snippet ?? '', snippetChars) })
      if (out.length === max) break
    }
  }
  return out
}
