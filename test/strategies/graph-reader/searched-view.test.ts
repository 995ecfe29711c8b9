import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { neighborPrompt, type SearchedView } from '../../../src/strategies/graph-reader/prompts.js'
import { fitSearched } from '../../../src/strategies/graph-reader/searched-view.js'

const promptOf = (searched: SearchedView) =>
  neighborPrompt({ question: 'Q?', keyElements: ['k'], notebook: { head: ['a fact'], hidden: 0, tail: [] }, query: 'last', searched, canSearchMore: true })
const within = (chars: number) => (prompt: string) => prompt.length <= chars
const queries = (n: number) => Array.from({ length: n }, (_, i) => `battery cathode chemistry aspect ${i + 1}`)
const listed = (prompt: string) => prompt.split('\n').filter((l) => l.startsWith('- battery'))

describe('fitSearched', () => {
  it('lists every search while the prompt fits', () => {
    const searched = queries(5)
    const prompt = fitSearched(searched, within(10_000), promptOf)
    expect(prompt).toBe(promptOf({ folded: 0, topics: [], recent: searched }))
    expect(prompt).not.toContain('earlier searches')
  })

  it('past the budget, keeps the newest searches that fit and folds the rest into one line', () => {
    const searched = queries(1000)
    const budget = promptOf({ folded: 0, topics: [], recent: [] }).length + 1500
    const prompt = fitSearched(searched, within(budget), promptOf)
    expect(prompt.length).toBeLessThanOrEqual(budget)
    const kept = listed(prompt)
    expect(kept.length).toBeGreaterThan(10)
    expect(kept).toEqual(searched.slice(-kept.length).map((q) => `- ${q}`))
    expect(prompt).toContain(
      `(${1000 - kept.length} earlier searches not listed; the words searched most: aspect, battery, cathode, chemistry, 10, 100, 1000, 101)`,
    )
    // The most that fit: one search more would not.
    const more = promptOf({
      folded: 999 - kept.length,
      topics: ['aspect', 'battery', 'cathode', 'chemistry', '10', '100', '1000', '101'],
      recent: searched.slice(-kept.length - 1),
    })
    expect(more.length).toBeGreaterThan(budget)
  })

  it('leaves common words out of the folded line', () => {
    const searched = ['what is the price of lithium', 'how is the price of nickel set', 'the price of cobalt in 2024']
    const prompt = fitSearched(searched, within(promptOf({ folded: 0, topics: [], recent: [] }).length + 90), promptOf)
    expect(prompt).toMatch(/the words searched most: price, 2024, cobalt, lithium, nickel, set\)/)
  })

  it('folds everything when not even the summary fits', () => {
    const prompt = fitSearched(queries(20), within(10), promptOf)
    expect(prompt).toContain('(20 earlier searches not listed;')
    expect(listed(prompt)).toEqual([])
  })

  it('for any searches and budget: the prompt fits (or lists none), and lists the newest in order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }), fc.integer({ min: 0, max: 4000 }), (searched, budget) => {
        const base = promptOf({ folded: 0, topics: [], recent: [] }).length
        const prompt = fitSearched(searched, within(base + budget), promptOf)
        const folded = /\((\d+) earlier searches not listed;/.exec(prompt)
        const kept = searched.length - Number(folded?.[1] ?? 0)
        expect(prompt.length <= base + budget || kept === 0).toBe(true)
        const list = prompt.slice(prompt.indexOf('Searches already run:\n') + 'Searches already run:\n'.length, prompt.indexOf('\n\nLast search:'))
        expect(
          list.endsWith(
            searched
              .slice(searched.length - kept)
              .map((q) => `- ${q}`)
              .join('\n'),
          ),
        ).toBe(true)
      }),
    )
  })
})
