import { embeddingPrice, type Pricing } from '../../core/contracts/run-cost.js'

/**
 * Dollars for `inputTokens` of an embedding model: the caller's `pricing`, else the built-in
 * table's embedding prices, else 0 for a model on this machine; `undefined` when unknown.
 */
export function embeddingDollars(
  inputTokens: number | undefined,
  model: string,
  options: { pricing?: Pricing | undefined; local?: boolean },
): number | undefined {
  const perMillion = embeddingPrice(model, options.pricing)
  if (perMillion === undefined) return options.local ? 0 : undefined
  return inputTokens === undefined ? undefined : (inputTokens * perMillion) / 1_000_000
}
