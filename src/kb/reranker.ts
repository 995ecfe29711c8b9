/** The reranker contract: passages reordered by how well they answer a query. */
import type { UsageReporter } from '../core/contracts/provider-usage.js'

/** One passage as a reranker returns it: its index in the list it was given, and its relevance. */
export interface RerankedPassage {
  index: number
  score?: number
}

/**
 * Reorders search candidates by relevance to the query: `modelReranker(llm)` asks a model,
 * `rerankEndpoint({ baseURL, model })` calls a `/rerank` API; any other implementation works.
 * It returns passages best first by index; one it leaves out keeps its place after those it
 * returned (a reranker never loses a result).
 */
export interface Reranker {
  /** `onUsage` is told what the call spent (a model reranker's model call), for the run to count. */
  rerank(query: string, passages: readonly string[], options?: { signal?: AbortSignal; onUsage?: UsageReporter }): Promise<RerankedPassage[]>
}

/** Every index from 0 to `count - 1` once: the reranked ones first (valid, first mention wins), then the rest in order. */
export function completeOrder(ranked: readonly RerankedPassage[], count: number): number[] {
  const order: number[] = []
  const seen = new Set<number>()
  for (const { index } of ranked) {
    if (Number.isInteger(index) && index >= 0 && index < count && !seen.has(index)) {
      seen.add(index)
      order.push(index)
    }
  }
  for (let index = 0; index < count; index++) if (!seen.has(index)) order.push(index)
  return order
}
