import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { neighborPrompt, type SearchedView } from '../../../src/strategies/graph-reader/prompts.js'
import { normalizeText } from '../../../src/strategy.js'
import { fitSearched, SearchedQueries } from '../../../src/strategies/graph-reader/searched-view.js'

const promptOf = (searched: SearchedView) =>
  neighborPrompt({ question: 'Q?', keyElements: ['k'], notebook: { head: ['a fact'], hidden: 0, tail: [] }, query: 'last', searched, canSearchMore: true })
const within = (chars: number) => (prompt: string) => prompt.length <= chars
const queries = (n: number) => Array.from({ length: n }, (_, i) => `battery cathode chemistry aspect ${i + 1}`)
const listed = (prompt: string) => prompt.split('\n').filter((l) => l.startsWith('- battery'))

describe('fitSearched', () => {
  it('lists every search while the prompt fits', () => {
    const searched = queries(5)
    const prompt = fitSearched(new SearchedQueries(searched), within(10_000), promptOf)
    expect(prompt).toBe(promptOf({ folded: 0, topics: [], recent: searched }))
    expect(prompt).not.toContain('earlier searches')
  })

  it('past the budget, keeps the newest searches that fit and folds the rest into one line', () => {
    const searched = queries(1000)
    const budget = promptOf({ folded: 0, topics: [], recent: [] }).length + 1500
    const prompt = fitSearched(new SearchedQueries(searched), within(budget), promptOf)
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
    const prompt = fitSearched(new SearchedQueries(searched), within(promptOf({ folded: 0, topics: [], recent: [] }).length + 90), promptOf)
    expect(prompt).toMatch(/the words searched most: price, 2024, cobalt, lithium, nickel, set\)/)
  })

  it('folds everything when not even the summary fits', () => {
    const prompt = fitSearched(new SearchedQueries(queries(20)), within(10), promptOf)
    expect(prompt).toContain('(20 earlier searches not listed;')
    expect(listed(prompt)).toEqual([])
  })

  it('for any searches and budget: the prompt fits (or lists none), and lists the newest in order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }), fc.integer({ min: 0, max: 4000 }), (searched, budget) => {
        const base = promptOf({ folded: 0, topics: [], recent: [] }).length
        const prompt = fitSearched(new SearchedQueries(searched), within(base + budget), promptOf)
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

  /** The fitting as it was: every search's words counted afresh, the whole list tried first, then a binary search over all. */
  const STOP = new Set('a an and are as at be by for from how in is it of on or the to was were what when where which who why with vs'.split(' '))
  function topicsAfresh(queries: readonly string[]): string[] {
    const counts = new Map<string, number>()
    for (const query of queries)
      for (const word of new Set(normalizeText(query).split(' '))) if (word.length > 1 && !STOP.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1)
    return [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 8)
      .map(([word]) => word)
  }
  function reference(searched: readonly string[], fits: (prompt: string) => boolean): string {
    const whole = promptOf({ folded: 0, topics: [], recent: [...searched] })
    if (fits(whole)) return whole
    const viewOf = (kept: number): SearchedView => ({
      folded: searched.length - kept,
      topics: topicsAfresh(searched),
      recent: searched.slice(searched.length - kept),
    })
    let low = 0
    let high = searched.length - 1
    while (low < high) {
      const mid = Math.ceil((low + high) / 2)
      if (fits(promptOf(viewOf(mid)))) low = mid
      else high = mid - 1
    }
    return promptOf(viewOf(low))
  }

  const query = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom('battery cathode', 'the price of nickel', 'cathode chemistry 2024', 'a', 'nickel nickel', 'x'.repeat(200)),
  )
  /** Searches added, a cancelled one taken back, and the answer check's prompt fitted in between, each within its own budget. */
  const steps = fc.array(
    fc.oneof(
      query.map((q) => ({ add: q })),
      fc.nat({ max: 40 }).map((back) => ({ back })),
      fc.integer({ min: 0, max: 3000 }).map((budget) => ({ budget })),
    ),
    { maxLength: 80 },
  )

  it('counts the words of searches as they come and go: the same topics as counting them all afresh', () => {
    fc.assert(
      fc.property(steps, (script) => {
        const searched = new SearchedQueries()
        const plain: string[] = []
        for (const step of script) {
          if ('add' in step) {
            searched.add(step.add)
            plain.push(step.add)
          } else if ('back' in step) {
            const q = plain[plain.length - 1 - step.back]
            if (q === undefined) continue
            searched.removeLast(q)
            plain.splice(plain.lastIndexOf(q), 1)
          }
          expect(searched.list).toEqual(plain)
          expect(searched.topics()).toEqual(topicsAfresh(plain))
        }
      }),
    )
  })

  it('fits exactly as trying the whole list then searching every count would, wherever the last fitting ended', () => {
    fc.assert(
      fc.property(steps, (script) => {
        const searched = new SearchedQueries()
        const plain: string[] = []
        const base = promptOf({ folded: 0, topics: [], recent: [] }).length
        for (const step of script) {
          if ('add' in step) {
            searched.add(step.add)
            plain.push(step.add)
          } else if ('back' in step) {
            const q = plain[plain.length - 1 - step.back]
            if (q === undefined) continue
            searched.removeLast(q)
            plain.splice(plain.lastIndexOf(q), 1)
          } else {
            const fits = within(base + step.budget)
            expect(fitSearched(searched, fits, promptOf)).toBe(reference(plain, fits))
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('builds no prompt longer than about twice the budget once the list is far over it', () => {
    const searched = new SearchedQueries(queries(5000))
    const base = promptOf({ folded: 0, topics: [], recent: [] }).length
    const budget = base + 2000
    for (let round = 0; round < 3; round++) {
      const built: number[] = []
      const prompt = fitSearched(
        searched,
        (p) => {
          built.push(p.length)
          return p.length <= budget
        },
        promptOf,
      )
      expect(prompt.length).toBeLessThanOrEqual(budget)
      // The first call tries the whole list once (it fitted last, as far as it knows); then never again.
      expect(built.filter((length) => length > 2 * budget).length).toBe(round === 0 ? 1 : 0)
      searched.add(`battery cathode chemistry aspect ${5001 + round}`)
    }
  })
})
