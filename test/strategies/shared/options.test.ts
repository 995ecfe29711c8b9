import { describe, expect, it } from 'vitest'

describe('strategy options', () => {
  it('refuses fractions, NaN and values below the minimum, naming the option', async () => {
    const { reflect, deep, graphReader } = await import('../../../src/strategy.js')
    expect(() => reflect({ reflect: { maxWords: Number.NaN } })).toThrow(/`reflect.maxWords` must be a whole number >= 1, got NaN/)
    expect(() => deep({ deep: { concurrency: 1.5 } })).toThrow(/`deep.concurrency` must be a whole number >= 1/)
    expect(() => graphReader({ graphReader: { concurrency: 0 } })).toThrow(/`graphReader.concurrency`/)
    expect(reflect({ reflect: { maxWords: 40 } }).name).toBe('reflect')
  })
})

describe('options checked at createAgent, for every strategy', () => {
  it('refuses an unusable scratchpad budget or a search limit below 1, naming the option', async () => {
    const { createAgent } = await import('../../../src/index.js')
    const { scriptedLLM } = await import('../../../src/testing/index.js')
    const llm = scriptedLLM({ replies: [] })
    expect(() => createAgent({ llm, scratchpad: { knowledgeChars: -5 } })).toThrow(/`scratchpad.knowledgeChars` must be a whole number >= 1, got -5/)
    expect(() => createAgent({ llm, scratchpad: { historySize: 1.5 } })).toThrow(/`scratchpad.historySize`/)
    expect(() => createAgent({ llm, searchLimit: -3 })).toThrow(/`searchLimit` must be a whole number >= 1, got -3/)
    expect(() => createAgent({ llm, maxIterations: Number.NaN })).toThrow(/`maxIterations`/)
    for (const strategy of ['graph-reader', 'reflect', 'deep']) expect(() => createAgent({ llm, strategy, searchLimit: 0 }), strategy).toThrow(/`searchLimit`/)
    expect(createAgent({ llm, scratchpad: { knowledgeChars: 400, historySize: 0 } })).toBeDefined()
  })
})
