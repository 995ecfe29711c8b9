import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { contentWords, lexicalIndex, lexicalTerms, rankTexts } from '../../src/documents/lexical.js'

// Stop words, words sharing a stem, a rare word, numbers, case, punctuation and a non-Latin word.
const WORDS = ['what', 'is', 'the', 'Moon', 'moons', 'tide', 'tides,', 'tidal', 'sea', 'salt', 'salted', 'wabi', '1998', 'río', 'don’t', '—', 'how']

describe('lexicalTerms', () => {
  it('lower-cases, drops stop words, stems, and keeps numbers and single letters', () => {
    expect(lexicalTerms('What is the role of Vitamin D in 2 trials?')).toEqual(['role', 'vitamin', 'd', '2', 'trial'])
    expect(lexicalTerms("Don't the children's tides — Tides!")).toEqual(['children', 'tide', 'tide'])
    expect(lexicalTerms('How does it work, and why?')).toEqual(['work'])
    expect(lexicalTerms('Río 東京 café')).toEqual(['río', '東京', 'café'])
    expect(lexicalTerms(' ;; ')).toEqual([])
    // A token longer than any word is kept whole, unstemmed.
    expect(lexicalTerms(`${'ab'.repeat(30)}ing`)).toEqual([`${'ab'.repeat(30)}ing`])
  })

  it('are the content words, stemmed: the words left once stop words go', () => {
    expect(contentWords("What's the children's Tides, and how?")).toEqual(['children', 'tides'])
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS), { maxLength: 10 }), (words) => {
        const text = words.join(' ')
        expect(lexicalTerms(text)).toEqual(contentWords(text).map((word) => lexicalTerms(word)[0]))
      }),
    )
  })
})

describe('rankTexts', () => {
  it('ranks the only text with the topic above one full of the question words', () => {
    const scores = rankTexts('What is wabi?', ['What is this spec? It is what it is, and this is how it is.', 'Wabi is a Japanese idea of beauty.'])
    expect(scores[1]).toBeGreaterThan(0)
    expect(scores[0]).toBe(0)
  })

  it('counts a rare term above a common one, and repeats of a term with diminishing returns', () => {
    const texts = ['salt sea', 'sea sea sea', 'sea tide', 'sea']
    const [saltSea = 0, seaSeaSea = 0, seaTide = 0, sea = 0] = rankTexts('salt sea', texts)
    expect(saltSea).toBeGreaterThan(seaSeaSea)
    expect(seaSeaSea).toBeGreaterThan(sea)
    expect(seaTide).toBeLessThan(sea)
    expect(seaSeaSea).toBeLessThan(3 * sea)
  })

  it('scores 0 for no terms, no texts, or no shared term', () => {
    expect(rankTexts('the of and', ['the sea'])).toEqual([0])
    expect(rankTexts('sea', [])).toEqual([])
    expect(rankTexts('zeppelin', ['the sea', ''])).toEqual([0, 0])
  })
})

describe('lexicalIndex', () => {
  const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' '))

  it('after any adds and removes (rows reused) scores as rankTexts does over the rows present', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(text, { maxLength: 4 }),
        fc.array(fc.constantFrom(...WORDS, 'absent'), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 6 }),
        (added, removals, readded, queryWords, limit) => {
          const index = lexicalIndex()
          const rows = new Map<number, string>()
          for (const [row, value] of added.entries()) {
            index.add(row, value)
            rows.set(row, value)
          }
          const freed: number[] = []
          for (const pick of removals) {
            const row = [...rows.keys()][pick % rows.size]
            if (row === undefined) break
            index.remove(row, rows.get(row) as string)
            rows.delete(row)
            freed.push(row)
          }
          for (const value of readded) {
            const row = freed.pop() ?? added.length + rows.size + 100
            index.add(row, value)
            rows.set(row, value)
          }
          expect(index.size).toBe(rows.size)
          const query = queryWords.join(' ')
          const present = [...rows.entries()]
          const scores = rankTexts(
            query,
            present.map(([, value]) => value),
          )
          const expected = present
            .map(([row], at) => ({ row, score: scores[at] as number }))
            .filter((hit) => hit.score > 0)
            .sort((a, b) => b.score - a.score)
            .slice(0, limit)
          const found = index.search(query, limit)
          expect(found.map((hit) => hit.score)).toEqual(expected.map((hit) => expect.closeTo(hit.score, 9)))
          for (const hit of found) expect(hit.score).toBeCloseTo(scores[present.findIndex(([row]) => row === hit.row)] as number, 9)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('ranks a row with a rare query term above rows with only stop words, and forgets removed rows', () => {
    const index = lexicalIndex()
    index.add(0, 'What is this spec? What is it for?')
    index.add(1, 'Wabi: beauty in imperfection.')
    index.add(2, 'How is it done, and what is it?')
    expect(index.search('What is wabi?', 5).map((hit) => hit.row)).toEqual([1])
    expect(index.search('what is it', 5)).toEqual([])
    expect(index.search('wabi', 0)).toEqual([])
    index.remove(1, 'Wabi: beauty in imperfection.')
    expect(index.search('wabi', 5)).toEqual([])
    expect(index.size).toBe(2)
  })
})
