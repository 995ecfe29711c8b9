/** Money and counters of a run. Dollars are plain numbers; counters are integers. */
export interface Cost {
  llm: number
  search: number
  total: number
  inputTokens: number
  outputTokens: number
  llmCalls: number
  searches: number
  fetches: number
}

/** Dollars per million tokens, as providers publish their prices. */
export interface ModelPrice {
  inputPerMillion: number
  outputPerMillion: number
}

/** Prices by model name, used when a provider reports no cost of its own. */
export type Pricing = Readonly<Record<string, ModelPrice>>

export function zeroCost(): Cost {
  return { llm: 0, search: 0, total: 0, inputTokens: 0, outputTokens: 0, llmCalls: 0, searches: 0, fetches: 0 }
}

export function addCost(a: Cost, b: Partial<Cost>): Cost {
  const llm = a.llm + (b.llm ?? 0)
  const search = a.search + (b.search ?? 0)
  return {
    llm,
    search,
    total: llm + search,
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    llmCalls: a.llmCalls + (b.llmCalls ?? 0),
    searches: a.searches + (b.searches ?? 0),
    fetches: a.fetches + (b.fetches ?? 0),
  }
}

/** A cost delta with every field set, from the parts that changed. */
export function costDelta(parts: Partial<Cost>): Cost {
  return addCost(zeroCost(), parts)
}

/**
 * Dollars for one model call: the provider's own figure wins, else the pricing table,
 * else zero (local models cost nothing we can know).
 */
export function llmDollars(
  usage: { inputTokens: number; outputTokens: number; cost?: number },
  model: string | undefined,
  pricing: Pricing | undefined,
): number {
  // A negative figure is a provider bug; taking it would make the run's total decrease.
  if (usage.cost !== undefined && Number.isFinite(usage.cost) && usage.cost >= 0) return usage.cost
  const price = model !== undefined ? pricing?.[model] : undefined
  if (!price) return 0
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000
}
