import { PRICE_TABLE } from './price-table.js'

/** Money and counters of a run. Dollars are plain numbers; counters are integers. */
export interface Cost {
  llm: number
  search: number
  /** Dollars of embedding calls: a knowledge base's query embeddings, long-term memory's recall. */
  embedding: number
  total: number
  inputTokens: number
  outputTokens: number
  llmCalls: number
  /**
   * Model and embedding calls whose price is unknown (a hosted model missing from the price
   * table, with no `pricing` for it and no cost reported): while above 0, the dollars and `total`
   * are lower bounds and `knownDollars(cost)` is `null`.
   */
  unpricedCalls: number
  /** Tokens embedded (not in `inputTokens`, which are the model calls'). */
  embeddingTokens: number
  searches: number
  fetches: number
}

/** Dollars per million tokens, as providers publish their prices. */
export interface ModelPrice {
  inputPerMillion: number
  outputPerMillion: number
  /** Prompt tokens read from the provider's cache. @defaultValue `inputPerMillion` */
  cachedInputPerMillion?: number
  /** Prompt tokens written to the provider's cache (Anthropic). @defaultValue `inputPerMillion` */
  cacheWritePerMillion?: number
}

/** Prices by model name, used when a provider reports no cost of its own. */
export type Pricing = Readonly<Record<string, ModelPrice>>

export function zeroCost(): Cost {
  return {
    llm: 0,
    search: 0,
    embedding: 0,
    total: 0,
    inputTokens: 0,
    outputTokens: 0,
    llmCalls: 0,
    unpricedCalls: 0,
    embeddingTokens: 0,
    searches: 0,
    fetches: 0,
  }
}

/** `a` and `b` added up. Fields added in later versions may be missing from a saved cost (a checkpoint, a log): they count as 0. */
export function addCost(a: Cost, b: Partial<Cost>): Cost {
  const llm = a.llm + (b.llm ?? 0)
  const search = a.search + (b.search ?? 0)
  const embedding = (a.embedding ?? 0) + (b.embedding ?? 0)
  return {
    llm,
    search,
    embedding,
    total: llm + search + embedding,
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    llmCalls: a.llmCalls + (b.llmCalls ?? 0),
    unpricedCalls: (a.unpricedCalls ?? 0) + (b.unpricedCalls ?? 0),
    embeddingTokens: (a.embeddingTokens ?? 0) + (b.embeddingTokens ?? 0),
    searches: a.searches + (b.searches ?? 0),
    fetches: a.fetches + (b.fetches ?? 0),
  }
}

/** A cost delta with every field set, from the parts that changed. */
export function costDelta(parts: Partial<Cost>): Cost {
  return addCost(zeroCost(), parts)
}

/** The run's dollars, or `null` when a model call's price was unknown. */
export function knownDollars(cost: Cost): number | null {
  return (cost.unpricedCalls ?? 0) > 0 ? null : cost.total
}

export interface CallUsage {
  inputTokens: number
  outputTokens: number
  /** Part of `inputTokens` read from the cache. */
  cachedInputTokens?: number
  /** Part of `inputTokens` written to the cache. */
  cacheWriteTokens?: number
  /** Dollars, as the provider reported them. */
  cost?: number
}

/**
 * Dollars for one model call with a `pricing` table: the provider's own figure wins, else the
 * table's entry for the model, else 0. For the run's accounting (which knows a price from a
 * free one) see `callDollars`.
 */
export function llmDollars(usage: CallUsage, model: string | undefined, pricing: Pricing | undefined): number {
  if (isReportedCost(usage.cost)) return usage.cost
  const price = model !== undefined ? pricing?.[model] : undefined
  return price ? dollarsAt(price, usage) : 0
}

/**
 * Dollars for one model call, or `null` when unknown: the provider's own figure, else the
 * caller's `pricing`, else the built-in price table (PRICE_TABLE), else 0 for a model on this
 * machine (`local`), else unknown. A paid backend is never reported as free.
 */
export function callDollars(
  usage: CallUsage,
  model: string | undefined,
  options: { pricing?: Pricing | undefined; local?: boolean | undefined },
): number | null {
  if (isReportedCost(usage.cost)) return usage.cost
  const price = modelPrice(model, options.pricing)
  if (price) return dollarsAt(price, usage)
  return options.local ? 0 : null
}

/** The price of a model: `pricing` by exact name, else the built-in table by its normalised name. */
export function modelPrice(model: string | undefined, pricing?: Pricing): ModelPrice | undefined {
  if (model === undefined) return undefined
  const own = pricing?.[model]
  if (own) return own
  const table: Readonly<Record<string, TableEntry>> = PRICE_TABLE.models
  for (const name of candidateNames(model)) {
    const entry = table[name]
    if (entry) {
      return {
        inputPerMillion: entry.input,
        outputPerMillion: entry.output,
        ...(entry.cachedInput !== undefined && { cachedInputPerMillion: entry.cachedInput }),
        ...(entry.cacheWrite !== undefined && { cacheWritePerMillion: entry.cacheWrite }),
      }
    }
  }
  return undefined
}

/**
 * Dollars per million input tokens of an embedding model: the caller's `pricing` by exact name
 * (its `inputPerMillion`), else the built-in table's embedding prices (an OpenRouter-style
 * `vendor/` prefix dropped); `undefined` when neither knows it.
 */
export function embeddingPrice(model: string, pricing?: Pricing): number | undefined {
  const own = pricing?.[model]?.inputPerMillion
  if (own !== undefined) return own
  const table: Readonly<Record<string, { input: number }>> = PRICE_TABLE.embeddings
  const lower = model.trim().toLowerCase()
  return (table[lower] ?? table[lower.slice(lower.lastIndexOf('/') + 1)])?.input
}

type TableEntry = { input: number; output: number; cachedInput?: number; cacheWrite?: number }

/**
 * A model's name as sent, then without an OpenRouter-style `vendor/` prefix, then without a
 * date suffix or `-latest` (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`), with
 * OpenRouter's dotted Claude versions (`claude-sonnet-4.5`) dashed. A name is never widened to a
 * `-latest` alias: that alias may point at another version with another price, so a version
 * missing from the table stays unknown.
 */
function candidateNames(model: string): string[] {
  const lower = model.trim().toLowerCase()
  const bare = lower.includes('/') ? lower.slice(lower.lastIndexOf('/') + 1) : lower
  const names = [lower, bare]
  for (const name of [lower, bare]) {
    const undated = name.replace(/-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/, '').replace(/-latest$/, '')
    names.push(undated, undated.replace(/(\d)\.(\d)/g, '$1-$2'))
  }
  return [...new Set(names)]
}

// A negative figure is a provider bug; taking it would make the run's total decrease.
function isReportedCost(cost: number | undefined): cost is number {
  return cost !== undefined && Number.isFinite(cost) && cost >= 0
}

function dollarsAt(price: ModelPrice, usage: CallUsage): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - cached)
  const plain = usage.inputTokens - cached - written
  const dollars =
    plain * price.inputPerMillion +
    cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
    written * (price.cacheWritePerMillion ?? price.inputPerMillion) +
    usage.outputTokens * price.outputPerMillion
  return dollars / 1_000_000
}
export { PRICE_TABLE } from './price-table.js'
