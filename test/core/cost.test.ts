import { describe, expect, it } from 'vitest'
import { callDollars } from './one-call-cost.js'

const pricing = { m: { inputPerMillion: 1, outputPerMillion: 2 } }

describe("a model call's dollars in the run's cost", () => {
  it('takes the provider figure first, else the pricing table, else zero', async () => {
    expect(await callDollars('m', { inputTokens: 1_000_000, outputTokens: 0, cost: 0.5 }, { pricing })).toBe(0.5)
    expect(await callDollars('m', { inputTokens: 1_000_000, outputTokens: 1_000_000 }, { pricing })).toBe(3)
    expect(await callDollars('other', { inputTokens: 1_000_000, outputTokens: 0 }, { pricing, local: true })).toBe(0)
  })

  it('never lets a negative or non-finite provider figure lower the run total', async () => {
    expect(await callDollars('m', { inputTokens: 1_000_000, outputTokens: 0, cost: -1 }, { pricing })).toBe(1)
    expect(await callDollars('m', { inputTokens: 1_000_000, outputTokens: 0, cost: Number.NaN }, { pricing })).toBe(1)
  })
})
