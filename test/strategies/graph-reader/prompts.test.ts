// The graph-reader's prompts keep what stays the same across calls of a role first, so a
// provider's prompt cache can reuse it: a later prompt with more facts extends the earlier one's
// text up to the end of its facts.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extractorPrompt, neighborPrompt } from '../../../src/strategies/graph-reader/prompts.js'

const commonPrefix = (a: string, b: string) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
const line = fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replace(/\s+/g, ' ').trim() || 'x')
const facts = fc.array(line, { minLength: 1, maxLength: 8 })

describe('graph-reader prompts, cache-friendly order', () => {
  it('node checks: the earlier prompt up to its last fact is a prefix of a later one with more facts, whatever else changed', () => {
    fc.assert(
      fc.property(facts, facts, line, line, fc.array(line), fc.array(line), (older, newer, q1, q2, s1, s2) => {
        const base = { question: 'Q?', keyElements: ['a', 'b'], hiddenFacts: 0, canSearchMore: true }
        const first = neighborPrompt({ ...base, notebook: older, query: q1, searched: s1 })
        const second = neighborPrompt({ ...base, notebook: [...older, ...newer], query: q2, searched: [...s1, ...s2] })
        const lastFact = `- ${older.at(-1)}`
        expect(commonPrefix(first, second)).toBeGreaterThanOrEqual(first.indexOf(lastFact, first.indexOf('Notebook:')) + lastFact.length)
      }),
    )
  })

  it('extraction: the question, key elements and known facts come before the results, which alone differ', () => {
    fc.assert(
      fc.property(facts, line, line, (notebook, q1, q2) => {
        const base = { question: 'Q?', keyElements: ['a'], notebook, hiddenFacts: 2 }
        const first = extractorPrompt({ ...base, query: q1, sources: [{ title: q1, url: 'https://a.example/', snippet: q1 }] })
        const second = extractorPrompt({ ...base, query: q2, sources: [{ title: q2, url: 'https://b.example/', snippet: q2 }] })
        expect(commonPrefix(first, second)).toBeGreaterThanOrEqual(first.indexOf('Results for the search'))
        expect(first).toContain('(2 older facts not shown)')
      }),
    )
  })
})
