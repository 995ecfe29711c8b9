import { describe, expect, it } from 'vitest'
import { callDollars, knownDollars, modelPrice, PRICE_TABLE } from '../../src/core/cost.js'
import { PRICE_TABLE as TABLE } from '../../src/core/price-table.js'
import { createAgent, fromGenerate } from '../../src/index.js'
import { mockSearch, scriptedLLM, searchFailure } from '../../src/testing/index.js'

const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 }

describe('the price table', () => {
  it('is dated and sourced, and prices every entry per million input and output tokens', () => {
    expect(TABLE.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(TABLE.sources.length).toBeGreaterThanOrEqual(6)
    for (const [name, price] of Object.entries(TABLE.models)) {
      expect(price.input, name).toBeGreaterThan(0)
      expect(price.output, name).toBeGreaterThan(0)
    }
    expect(PRICE_TABLE).toBe(TABLE)
  })

  it('finds a model by the names APIs and OpenRouter give it: dated, vendor-prefixed, dotted', () => {
    expect(modelPrice('gpt-4o-mini')).toMatchObject({ inputPerMillion: 0.15, outputPerMillion: 0.6 })
    expect(modelPrice('gpt-4o-mini-2024-07-18')).toEqual(modelPrice('gpt-4o-mini'))
    expect(modelPrice('openai/gpt-4o-mini')).toEqual(modelPrice('gpt-4o-mini'))
    expect(modelPrice('claude-sonnet-4-5-20250929')).toEqual(modelPrice('claude-sonnet-4-5'))
    expect(modelPrice('anthropic/claude-sonnet-4.5')).toEqual(modelPrice('claude-sonnet-4-5'))
    expect(modelPrice('mistral-small-2506')).toEqual(modelPrice('mistral-small-latest'))
    expect(modelPrice('qwen3:4b')).toBeUndefined()
  })
})

describe('callDollars', () => {
  it('takes the provider figure, then the caller pricing, then the table', () => {
    expect(callDollars({ ...usage, cost: 0.5 }, 'gpt-4o', {})).toBe(0.5)
    expect(callDollars(usage, 'gpt-4o', { pricing: { 'gpt-4o': { inputPerMillion: 1, outputPerMillion: 2 } } })).toBe(3)
    expect(callDollars(usage, 'gpt-4o', {})).toBeCloseTo(2.5 + 10)
  })

  it('is 0 for an unknown model on this machine and unknown (null) anywhere else, never $0', () => {
    expect(callDollars(usage, 'qwen3:4b', { local: true })).toBe(0)
    expect(callDollars(usage, 'some-hosted-model', {})).toBeNull()
    expect(callDollars(usage, undefined, {})).toBeNull()
  })

  it('prices cached prompt tokens at the cached rate and cache writes at the write rate', () => {
    const cached = callDollars({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 800_000 }, 'gpt-4o', {})
    expect(cached).toBeCloseTo(0.2 * 2.5 + 0.8 * 1.25)
    const written = callDollars({ inputTokens: 1_000_000, outputTokens: 0, cacheWriteTokens: 1_000_000 }, 'claude-haiku-4-5', {})
    expect(written).toBeCloseTo(1.25)
  })
})

const corpus = [{ title: 'Rayleigh scattering', url: 'https://physics.example/rayleigh', snippet: 'Short wavelengths scatter more.' }]

describe('a run on a model of unknown price', () => {
  it('reports its cost as unknown, not as free', async () => {
    const replies = ['Action: Search\nQuery: sky', 'The sky is blue because of Rayleigh scattering.', 'Action: Answer', 'Blue [1].']
    let i = 0
    const llm = fromGenerate(async () => replies[i++] ?? '', { model: 'some-hosted-model' })
    const result = await createAgent({ llm, search: mockSearch({ results: () => corpus }) }).research('Why is the sky blue?').result
    expect(result.cost.llmCalls).toBeGreaterThan(0)
    expect(result.cost.unpricedCalls).toBe(result.cost.llmCalls)
    expect(knownDollars(result.cost)).toBeNull()
  })

  it('is priced by the table when the model is in it, even with no cost reported', async () => {
    const llm = scriptedLLM({ model: 'gpt-4o-mini', replies: ['Action: Search\nQuery: sky', 'Rayleigh scattering.', 'Action: Answer', 'Blue [1].'] })
    const result = await createAgent({ llm, search: mockSearch({ results: () => corpus }) }).research('Why is the sky blue?').result
    expect(result.cost.unpricedCalls).toBe(0)
    expect(knownDollars(result.cost)).toBeGreaterThan(0)
  })
})

describe('budget: { usd }', () => {
  it('stops exploring near the budget, keeps the answer whole and ends answered', async () => {
    const planner = scriptedLLM({ replies: (_req, n) => `Action: Search\nQuery: sky ${n}`, cost: 0.01 })
    const synthesizer = scriptedLLM({ replies: (_req, n) => `Knowledge after ${n + 1} searches.`, cost: 0.01 })
    const finalizer = scriptedLLM({ replies: ['The whole final answer, not cut off.'], cost: 0.01 })
    const agent = createAgent({
      models: { planner, synthesizer, finalizer },
      search: mockSearch({ results: () => corpus }),
      maxIterations: 20,
      budget: { usd: 0.1 },
    })
    const run = agent.research('Why is the sky blue?')
    const warnings: string[] = []
    for await (const event of run) if (event.type === 'warning') warnings.push(event.code)
    const result = await run.result
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe('The whole final answer, not cut off.')
    expect(warnings).toContain('budget')
    expect(planner.calls.length).toBeLessThan(20)
    expect(result.cost.total).toBeLessThanOrEqual(0.1)
  })
})

describe('when every search fails', () => {
  it('ends with an error of code search, saying the first failure, instead of answering from nothing', async () => {
    const llm = scriptedLLM({ replies: (req) => (req.system?.startsWith('You are the planner') ? 'Action: Search\nQuery: sky' : 'A guess.') })
    const search = mockSearch({ fail: () => searchFailure('connect ECONNREFUSED 127.0.0.1:8080') })
    const result = await createAgent({ llm, search, maxIterations: 3 }).research('Why is the sky blue?').result
    expect(result.reason).toBe('error')
    expect(result.error?.code).toBe('search')
    expect(result.error?.message).toContain('ECONNREFUSED')
    expect(result.answer).toBe('')
  })

  it('answers from what was known before, and answers "nothing found" when searches worked but were empty', async () => {
    const llm = scriptedLLM({ replies: (req) => (req.system?.startsWith('You are the planner') ? 'Action: Search\nQuery: sky' : 'Nothing was found.') })
    const failing = mockSearch({ fail: () => searchFailure('down') })
    const known = await createAgent({ llm, search: failing, maxIterations: 2 }).research('Why is the sky blue?', { knowledge: 'Rayleigh scattering.' }).result
    expect(known.reason).not.toBe('error')
    const empty = await createAgent({ llm, search: mockSearch({ results: () => [] }), maxIterations: 2 }).research('Why is the sky blue?').result
    expect(empty.reason).not.toBe('error')
    expect(empty.answer).toBe('Nothing was found.')
  })
})
