/** A run's cost before anything was spent, for the events a test writes by hand. */
import type { Cost } from '../../src/index.js'

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
