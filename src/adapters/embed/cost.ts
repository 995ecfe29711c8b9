import { PRICE_TABLE, type Pricing } from '../../core/index.js'

/**
 * Dollars for `inputTokens` of an embedding model: the caller's `pricing`, else the built-in
 * table's embedding prices, else 0 for a model on this machine; `undefined` when unknown.
 */
export function embeddingDollars(
  inputTokens: number | undefined,
  model: string,
  options: { pricing?: Pricing | undefined; local?: boolean },
): number | undefined {
  const perMillion = options.pricing?.[model]?.inputPerMillion ?? tablePrice(model)
  if (perMillion === undefined) return options.local ? 0 : undefined
  return inputTokens === undefined ? undefined : (inputTokens * perMillion) / 1_000_000
}

function tablePrice(model: string): number | undefined {
  const table: Readonly<Record<string, { input: number }>> = PRICE_TABLE.embeddings
  const lower = model.trim().toLowerCase()
  // OpenRouter-style names carry the vendor: `openai/text-embedding-3-small`.
  return (table[lower] ?? table[lower.slice(lower.lastIndexOf('/') + 1)])?.input
}
