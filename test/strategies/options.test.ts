/** Each strategy's own options section: checked by its definition when the agent is made, renamed options refused. */
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { deep, graphReader, reflect } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

const llm = scriptedLLM({ replies: [] })

describe('strategy options', () => {
  it('refuses fractions, NaN and values below the minimum, naming the option', () => {
    expect(() => reflect({ maxWords: Number.NaN })).toThrow(/`reflect.maxWords` must be a whole number >= 1, got NaN/)
    expect(() => deep({ concurrency: 1.5 })).toThrow(/`deep.concurrency` must be a whole number >= 1/)
    expect(() => graphReader({ concurrency: 0 })).toThrow(/`graphReader.concurrency`/)
    expect(reflect({ maxWords: 40 }).name).toBe('reflect')
  })

  it('refuses a field the section does not have, listing the ones it has', () => {
    expect(() => createAgent({ llm, graphReader: { maxStep: 3 } as never })).toThrow(
      /`graphReader` has no option `maxStep`.*its options: maxSteps, concurrency/,
    )
    expect(() => createAgent({ llm, deep: 'report' as never })).toThrow(/`deep` must be an object of options/)
    expect(() => createAgent({ llm, deep: { mode: 'essay' as never } })).toThrow(/`deep.mode` must be 'report' or 'conversational'/)
  })

  it('saves each strategy its normalised settings: defaults filled, JSON only', () => {
    expect(graphReader().settings).toEqual({
      maxSteps: 8,
      concurrency: 4,
      maxPagesPerNode: 2,
      pageChars: 4000,
      condenseAbove: 40,
      condenseBatch: 25,
      contextTokens: 6000,
    })
    expect(reflect({ maxSteps: 3 }).settings).toEqual({ maxSteps: 3, maxWords: 80, concurrency: 4 })
  })
})

describe('options checked at createAgent, for every strategy', () => {
  it('refuses an unusable scratchpad budget or a search limit below 1, naming the option', () => {
    expect(() => createAgent({ llm, scratchpad: { knowledgeChars: -5 } })).toThrow(/`scratchpad.knowledgeChars` must be a whole number >= 1, got -5/)
    expect(() => createAgent({ llm, scratchpad: { historySize: 1.5 } })).toThrow(/`scratchpad.historySize`/)
    expect(() => createAgent({ llm, scratchpad: { maxSteps: Number.NaN } })).toThrow(/`scratchpad.maxSteps`/)
    expect(() => createAgent({ llm, searchLimit: -3 })).toThrow(/`searchLimit` must be a whole number >= 1, got -3/)
    for (const strategy of ['graph-reader', 'reflect', 'deep']) expect(() => createAgent({ llm, strategy, searchLimit: 0 }), strategy).toThrow(/`searchLimit`/)
    expect(createAgent({ llm, scratchpad: { knowledgeChars: 400, historySize: 0 } })).toBeDefined()
  })

  it('checks a section whichever strategy runs: a wrong deep option fails a scratchpad agent too', () => {
    expect(() => createAgent({ llm, strategy: 'scratchpad', deep: { concurrency: 0 } })).toThrow(/`deep.concurrency`/)
  })
})

describe('a step limit is maxSteps in every strategy', () => {
  // 0.x keeps no silent alias: each old name is a config error that names the new one.
  it.each([
    ['top-level maxIterations', { maxIterations: 3 }, 'scratchpad.maxSteps'],
    ['deep.maxIterations', { deep: { maxIterations: 3 } }, 'deep.maxSteps'],
    ['reflect.maxIterations', { reflect: { maxIterations: 3 } }, 'reflect.maxSteps'],
  ])('refuses %s, naming its new name', (_, old, now) => {
    let thrown: unknown
    try {
      createAgent({ llm, ...(old as object) })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'config', message: expect.stringContaining(`use \`${now}\``) })
  })

  it('refuses the old name even for a strategy that does not run', () => {
    expect(() => createAgent({ llm, strategy: 'react', ...({ deep: { maxIterations: 2 } } as object) })).toThrow(/use `deep.maxSteps`/)
  })
})
