import { describe, expect, it } from 'vitest'
import { llmDollars } from '../../src/core/contracts/run-cost.js'

const pricing = { m: { inputPerMillion: 1, outputPerMillion: 2 } }

describe('llmDollars', () => {
  it('takes the provider figure first, else the pricing table, else zero', () => {
    expect(llmDollars({ inputTokens: 1_000_000, outputTokens: 0, cost: 0.5 }, 'm', pricing)).toBe(0.5)
    expect(llmDollars({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, 'm', pricing)).toBe(3)
    expect(llmDollars({ inputTokens: 1_000_000, outputTokens: 0 }, 'other', pricing)).toBe(0)
  })

  it('never lets a negative or non-finite provider figure lower the run total', () => {
    expect(llmDollars({ inputTokens: 1_000_000, outputTokens: 0, cost: -1 }, 'm', pricing)).toBe(1)
    expect(llmDollars({ inputTokens: 1_000_000, outputTokens: 0, cost: Number.NaN }, 'm', pricing)).toBe(1)
  })
})
