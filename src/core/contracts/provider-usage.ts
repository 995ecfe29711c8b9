import { type Cost, callDollars, costDelta, embeddingPrice, type Pricing } from './run-cost.js'

/**
 * What a provider spent inside one of its calls, on calls of its own: a knowledge base's query
 * embedding, its reranker's model call, long-term memory's embedding of a question. The provider
 * reports it through the call's `onUsage` option, and the run counts it as it counts its own
 * model calls: a `model` usage as an `llm-call` (with `role`) and its cost, an `embedding` usage
 * in `Cost.embedding` and `Cost.embeddingTokens`.
 */
export type ProviderUsage =
  | {
      kind: 'model'
      /** What the call was for: the `llm-call` event's role (e.g. `reranker`). */
      role: string
      model?: string | undefined
      /** The model runs on this machine: priced 0 when no price is known (as `LLMProvider.local`). */
      local?: boolean | undefined
      latencyMs?: number | undefined
      inputTokens: number
      outputTokens: number
      /** Parts of `inputTokens` read from and written to the provider's cache. */
      cachedInputTokens?: number | undefined
      cacheWriteTokens?: number | undefined
      /** Dollars, as the provider reported them. */
      cost?: number | undefined
    }
  | {
      kind: 'embedding'
      model: string
      /** Tokens embedded, when the backend counted them. */
      inputTokens?: number | undefined
      /** Dollars, when the provider knows them (`Embeddings.cost`); a free one says 0. */
      cost?: number | undefined
    }

/** Told what a provider's call spent; the run passes one to each call it makes. */
export type UsageReporter = (usage: ProviderUsage) => void

/** An embedding call's usage, from what `EmbeddingProvider.embed` returned. */
export function embeddingUsage(model: string, { inputTokens, cost }: { inputTokens?: number | undefined; cost?: number | undefined }): ProviderUsage {
  return { kind: 'embedding', model, ...(inputTokens !== undefined ? { inputTokens } : {}), ...(cost !== undefined ? { cost } : {}) }
}

/**
 * The cost delta of a usage, and its dollars (`null` when unknown). A model call is priced as the
 * run prices its own (`callDollars`); an embedding by its reported cost, else `pricing`'s or the
 * built-in table's input price for the model, else unknown.
 */
export function usageCost(usage: ProviderUsage, pricing: Pricing | undefined): { delta: Cost; dollars: number | null } {
  if (usage.kind === 'model') {
    const inputTokens = tokenCount(usage.inputTokens) ?? 0
    const outputTokens = tokenCount(usage.outputTokens) ?? 0
    const { cachedInputTokens, cacheWriteTokens, cost } = usage
    const call = {
      inputTokens,
      outputTokens,
      ...(cachedInputTokens !== undefined ? { cachedInputTokens } : {}),
      ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
      ...(cost !== undefined ? { cost } : {}),
    }
    const dollars = callDollars(call, usage.model, { pricing, local: usage.local })
    return { dollars, delta: costDelta({ llm: dollars ?? 0, inputTokens, outputTokens, llmCalls: 1, unpricedCalls: dollars === null ? 1 : 0 }) }
  }
  const tokens = tokenCount(usage.inputTokens)
  const dollars = embeddingDollars(usage.cost, tokens, embeddingPrice(usage.model, pricing))
  return { dollars, delta: costDelta({ embedding: dollars ?? 0, embeddingTokens: tokens ?? 0, unpricedCalls: dollars === null ? 1 : 0 }) }
}

function embeddingDollars(reported: number | undefined, tokens: number | undefined, perMillion: number | undefined): number | null {
  // A negative or non-finite figure is a provider bug, not a refund.
  if (reported !== undefined && Number.isFinite(reported) && reported >= 0) return reported
  return tokens !== undefined && perMillion !== undefined ? (tokens * perMillion) / 1_000_000 : null
}

// What a provider of the user's reports is not trusted to be a count: one that is not is taken as none.
function tokenCount(n: number | undefined): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}
