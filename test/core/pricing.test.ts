import { describe, expect, it } from 'vitest'
import { PRICE_TABLE as TABLE } from '../../src/core/contracts/price-table.js'
import { type Cost, createAgent, fromGenerate } from '../../src/index.js'
import { mockSearch, scriptedLLM, searchFailure } from '../../src/testing/index.js'
import { callDollars, chargedRates } from './one-call-cost.js'

const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 }

/** A run's dollars, or `null` when a call of it had no known price. */
const knownDollars = (cost: Cost) => (cost.unpricedCalls > 0 ? null : cost.total)

type Price = { inputPerMillion: number; outputPerMillion: number; cachedInputPerMillion?: number; cacheWritePerMillion?: number }

/** The rates a run charges at a price: cached reads and cache writes at the plain input rate unless priced apart. */
const charged = (price: Price) => ({
  input: price.inputPerMillion,
  cachedInput: price.cachedInputPerMillion ?? price.inputPerMillion,
  cacheWrite: price.cacheWritePerMillion ?? price.inputPerMillion,
  output: price.outputPerMillion,
})

/** What a run charges per million tokens of `model` when nothing else prices it: the table's price, or undefined. */
const modelPrice = (model: string) => chargedRates(model)

describe('the price table', () => {
  it('is dated and sourced, prices every entry per million input and output tokens, and is what a run charges by', async () => {
    expect(TABLE.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(Object.keys(TABLE.sources).length).toBeGreaterThanOrEqual(6)
    for (const [name, price] of Object.entries(TABLE.models)) {
      expect(price.input, name).toBeGreaterThan(0)
      expect(price.output, name).toBeGreaterThan(0)
      expect(await callDollars(name, usage), name).toBeCloseTo(price.input + price.output, 9)
    }
  })

  it('prices embedding models by their input tokens alone, each from a named source', () => {
    const sources: Readonly<Record<string, string>> = TABLE.sources
    for (const [name, price] of Object.entries(TABLE.embeddings)) {
      expect(price.input, name).toBeGreaterThan(0)
      for (const source of price.from) expect(sources[source], `${name} from ${source}`).toBeTruthy()
    }
    expect(TABLE.embeddings['text-embedding-3-small'].input).toBe(0.02)
  })

  it('says where every entry came from, and a cache read never costs more than a plain prompt token', () => {
    const sources: Readonly<Record<string, string>> = TABLE.sources
    for (const [name, price] of Object.entries(TABLE.models) as [string, TableEntry][]) {
      expect(price.from.length, name).toBeGreaterThan(0)
      for (const source of price.from) expect(sources[source], `${name} from ${source}`).toBeTruthy()
      if (price.cachedInput !== undefined) expect(price.cachedInput, name).toBeLessThanOrEqual(price.input)
      if (price.cacheWrite !== undefined) expect(price.cacheWrite, name).toBeGreaterThanOrEqual(price.input)
    }
  })

  // Checked against the providers' pages and the datasets named in the table's sources; a change
  // here is a price change and needs a new `asOf` and source.
  it.each([
    ['gpt-4o-mini', { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 }],
    ['gpt-5-nano', { inputPerMillion: 0.05, cachedInputPerMillion: 0.005, outputPerMillion: 0.4 }],
    ['gpt-6-sol', { inputPerMillion: 2, cachedInputPerMillion: 0.2, cacheWritePerMillion: 2.5, outputPerMillion: 10 }],
    ['o3', { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 }],
    ['claude-sonnet-4-5', { inputPerMillion: 3, cachedInputPerMillion: 0.3, cacheWritePerMillion: 3.75, outputPerMillion: 15 }],
    ['claude-opus-5-5', { inputPerMillion: 4, cachedInputPerMillion: 0.2, cacheWritePerMillion: 5, outputPerMillion: 20 }],
    ['claude-opus-4-1', { inputPerMillion: 15, cachedInputPerMillion: 1.5, cacheWritePerMillion: 18.75, outputPerMillion: 75 }],
    ['llama-3.3-70b-versatile', { inputPerMillion: 0.59, outputPerMillion: 0.79 }],
    ['mistral-small-2603', { inputPerMillion: 0.15, cachedInputPerMillion: 0.015, outputPerMillion: 0.6 }],
    ['deepseek-flash', { inputPerMillion: 0.3, cachedInputPerMillion: 0.006, outputPerMillion: 1.2 }],
  ] as const)('prices %s as its sources list it', async (model, price) => {
    expect(await modelPrice(model)).toEqual(charged(price))
  })

  it('finds a model by the names APIs and OpenRouter give it: dated, vendor-prefixed, dotted', async () => {
    expect(await modelPrice('gpt-4o-mini')).toMatchObject({ input: 0.15, output: 0.6 })
    expect(await modelPrice('gpt-4o-mini-2024-07-18')).toEqual(await modelPrice('gpt-4o-mini'))
    expect(await modelPrice('openai/gpt-4o-mini')).toEqual(await modelPrice('gpt-4o-mini'))
    expect(await modelPrice('claude-sonnet-4-5-20250929')).toEqual(await modelPrice('claude-sonnet-4-5'))
    expect(await modelPrice('anthropic/claude-sonnet-4.5')).toEqual(await modelPrice('claude-sonnet-4-5'))
    expect(await modelPrice('claude-3-5-haiku-latest')).toEqual(await modelPrice('claude-3-5-haiku'))
    expect(await modelPrice('mistralai/mistral-small-2603')).toEqual(await modelPrice('mistral-small-2603'))
    expect(await modelPrice('qwen3:4b')).toBeUndefined()
  })

  it('prices a dated version that has its own price by that price, not by its undated name', async () => {
    expect(await modelPrice('gpt-4o-2024-05-13')).toMatchObject({ input: 5, output: 15 })
    expect(await modelPrice('gpt-4o-2024-08-06')).toEqual(await modelPrice('gpt-4o'))
  })

  it('leaves a version missing from the table unknown instead of pricing it as a -latest alias', async () => {
    expect(await modelPrice('mistral-small-2506')).toBeUndefined()
    expect(await modelPrice('mistral-small-latest')).toBeUndefined()
    expect(await modelPrice('deepseek-chat')).toBeUndefined()
    expect(await callDollars('mistral-small-2506', usage)).toBeNull()
  })
})

type TableEntry = { input: number; output: number; cachedInput?: number; cacheWrite?: number; from: readonly string[] }

describe("a call's dollars in the run's cost", () => {
  it('takes the provider figure, then the caller pricing, then the table', async () => {
    expect(await callDollars('gpt-4o', { ...usage, cost: 0.5 })).toBe(0.5)
    expect(await callDollars('gpt-4o', usage, { pricing: { 'gpt-4o': { inputPerMillion: 1, outputPerMillion: 2 } } })).toBe(3)
    expect(await callDollars('gpt-4o', usage)).toBeCloseTo(2.5 + 10)
  })

  it('is 0 for an unknown model on this machine and unknown (null) anywhere else, never $0', async () => {
    expect(await callDollars('qwen3:4b', usage, { local: true })).toBe(0)
    expect(await callDollars('some-hosted-model', usage)).toBeNull()
    expect(await callDollars(undefined, usage)).toBeNull()
  })

  it('prices cached prompt tokens at the cached rate and cache writes at the write rate', async () => {
    const cached = await callDollars('gpt-4o', { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 800_000 })
    expect(cached).toBeCloseTo(0.2 * 2.5 + 0.8 * 1.25)
    const written = await callDollars('claude-haiku-4-5', { inputTokens: 1_000_000, outputTokens: 0, cacheWriteTokens: 1_000_000 })
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
      scratchpad: { maxSteps: 20 },
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
    const result = await createAgent({ llm, search, scratchpad: { maxSteps: 3 } }).research('Why is the sky blue?').result
    expect(result.reason).toBe('error')
    expect(result.error?.code).toBe('search')
    expect(result.error?.message).toContain('ECONNREFUSED')
    expect(result.answer).toBe('')
  })

  it('answers from what was known before, and answers "nothing found" when searches worked but were empty', async () => {
    const llm = scriptedLLM({ replies: (req) => (req.system?.startsWith('You are the planner') ? 'Action: Search\nQuery: sky' : 'Nothing was found.') })
    const failing = mockSearch({ fail: () => searchFailure('down') })
    const known = await createAgent({ llm, search: failing, scratchpad: { maxSteps: 2 } }).research('Why is the sky blue?', {
      knowledge: 'Rayleigh scattering.',
    }).result
    expect(known.reason).not.toBe('error')
    const empty = await createAgent({ llm, search: mockSearch({ results: () => [] }), scratchpad: { maxSteps: 2 } }).research('Why is the sky blue?').result
    expect(empty.reason).not.toBe('error')
    expect(empty.answer).toBe('Nothing was found.')
  })
})
