/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each list gives an item
 * `weight / (k + rank)`, summed over the lists it is in. Ranks, not scores, are fused, so a
 * cosine and a BM25 score (or two search engines' relevance) never need to be made comparable;
 * `k = 60` keeps one list's first few from drowning out what both lists agree on. Shared by the
 * knowledge base (vector and text retrieval) and `combineSearch()` (several search providers).
 *
 * Equal fused scores are common (each list's first item alone scores `1 / (k + 1)`), and the
 * order of the lists should not decide them: a vector list's first hit among near-equal cosines
 * is noise beside the one chunk a rare word matches. Given each item's own `score`, a tie goes to
 * the item whose score stands out more in its list, in standard deviations from the list's mean
 * (an item alone in its list stands out most), and only then to the item seen first.
 */
export const RRF_K = 60

export interface RankFusionOptions<T = unknown> {
  /** @defaultValue RRF_K (60) */
  readonly k?: number
  /** One weight per list, in the order of the lists. @defaultValue 1 for every list */
  readonly weights?: readonly number[]
  /** Each item's score in its own list (higher is better), to break ties between equal fused scores. */
  readonly score?: ((item: T) => number) | undefined
}

export function reciprocalRankFusion<T>(
  lists: readonly (readonly T[])[],
  key: (item: T) => string,
  { k = RRF_K, weights = [], score }: RankFusionOptions<T> = {},
): { item: T; score: number }[] {
  const fused = new Map<string, { item: T; parts: number[]; standout: number; first: number }>()
  let order = 0
  for (const [index, list] of lists.entries()) {
    const weight = weights[index] ?? 1
    const standouts = score ? standing(list.map(score)) : list.map(() => 0)
    for (const [rank, item] of list.entries()) {
      const id = key(item)
      const part = weight / (k + rank + 1)
      const standout = standouts[rank] as number
      const found = fused.get(id)
      if (found) {
        found.parts.push(part)
        found.standout = Math.max(found.standout, standout)
      } else fused.set(id, { item, parts: [part], standout, first: order++ })
    }
  }
  // Summed smallest first, so the score of an item does not depend on the order of the lists
  // (floating-point addition is not associative).
  const scored = [...fused.values()].map(({ item, parts, standout, first }) => ({
    item,
    standout,
    first,
    score: parts.sort((a, b) => a - b).reduce((sum, part) => sum + part, 0),
  }))
  // A tie goes to the item that stands out more in its own list, then to the one seen first.
  return scored.sort((a, b) => b.score - a.score || b.standout - a.standout || a.first - b.first).map(({ item, score }) => ({ item, score }))
}

/**
 * How far each score stands above its list's mean, in standard deviations: +Infinity for the
 * only item of a list, 0 for every item of a list whose scores are all equal.
 */
function standing(scores: readonly number[]): number[] {
  if (scores.length === 1) return [Number.POSITIVE_INFINITY]
  const mean = scores.reduce((sum, value) => sum + value, 0) / scores.length
  const deviation = Math.sqrt(scores.reduce((sum, value) => sum + (value - mean) ** 2, 0) / scores.length)
  return scores.map((value) => (deviation > 0 && Number.isFinite(value) ? (value - mean) / deviation : 0))
}
