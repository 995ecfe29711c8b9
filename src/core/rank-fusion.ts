/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each list gives an item
 * `weight / (k + rank)`, summed over the lists it is in. Ranks, not scores, are fused, so a
 * cosine and a BM25 score (or two search engines' relevance) never need to be made comparable;
 * `k = 60` keeps one list's first few from drowning out what both lists agree on. Shared by the
 * knowledge base (vector and text retrieval) and `combineSearch()` (several search providers).
 */
export const RRF_K = 60

export interface RankFusionOptions {
  /** @defaultValue RRF_K (60) */
  readonly k?: number
  /** One weight per list, in the order of the lists. @defaultValue 1 for every list */
  readonly weights?: readonly number[]
}

export function reciprocalRankFusion<T>(
  lists: readonly (readonly T[])[],
  key: (item: T) => string,
  { k = RRF_K, weights = [] }: RankFusionOptions = {},
): { item: T; score: number }[] {
  const fused = new Map<string, { item: T; parts: number[]; first: number }>()
  let order = 0
  for (const [index, list] of lists.entries()) {
    const weight = weights[index] ?? 1
    for (const [rank, item] of list.entries()) {
      const id = key(item)
      const part = weight / (k + rank + 1)
      const found = fused.get(id)
      if (found) found.parts.push(part)
      else fused.set(id, { item, parts: [part], first: order++ })
    }
  }
  // Summed smallest first, so the score of an item does not depend on the order of the lists
  // (floating-point addition is not associative).
  const scored = [...fused.values()].map(({ item, parts, first }) => ({ item, first, score: parts.sort((a, b) => a - b).reduce((sum, part) => sum + part, 0) }))
  // Ties keep the order items were first seen in: the first list wins a tie.
  return scored.sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score }) => ({ item, score }))
}
