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
