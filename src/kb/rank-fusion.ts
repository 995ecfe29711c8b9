/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each list gives an item
 * `1 / (k + rank)`, summed over the lists it is in. Ranks, not scores, are fused, so a cosine
 * and a BM25 score never need to be made comparable; `k = 60` keeps one list's first few from
 * drowning out what both lists agree on.
 */
export const RRF_K = 60

export function reciprocalRankFusion<T>(lists: readonly (readonly T[])[], key: (item: T) => string, k = RRF_K): { item: T; score: number }[] {
  const fused = new Map<string, { item: T; score: number; first: number }>()
  let order = 0
  for (const list of lists) {
    for (const [rank, item] of list.entries()) {
      const id = key(item)
      const found = fused.get(id)
      if (found) found.score += 1 / (k + rank + 1)
      else fused.set(id, { item, score: 1 / (k + rank + 1), first: order++ })
    }
  }
  // Ties keep the order items were first seen in: the first list wins a tie.
  return [...fused.values()].sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score }) => ({ item, score }))
}
