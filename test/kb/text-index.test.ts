import fc from 'fast-check'
import MiniSearch from 'minisearch'
import { describe, expect, it } from 'vitest'
import { BestRows } from '../../src/kb/best-rows.js'
import { textIndex } from '../../src/kb/text-index.js'

const BOOSTS = [2, 1.5, 1]
// Words that are prefixes of others (prefix matches), short words (never prefix-matched), case and punctuation.
const WORDS = ['moon', 'moons', 'moonlight', 'Moon', 'tide', 'tides,', 'sea', 'salt', 'salted', 'fern', 'ash', 'ashes', 'llama', 'llamas.', '—', 'río']

/** MiniSearch as the memory store used it: the ranking the text index keeps. */
function miniSearch() {
  return new MiniSearch<{ id: number; f0: string; f1: string; f2: string }>({
    fields: ['f0', 'f1', 'f2'],
    searchOptions: { boost: { f0: 2, f1: 1.5 }, prefix: (term) => term.length > 3 },
  })
}

const asDocument = (id: number, fields: readonly string[]) => ({ id, f0: fields[0] ?? '', f1: fields[1] ?? '', f2: fields[2] ?? '' })

describe('textIndex', () => {
  it('ranks as MiniSearch does, keeping only the best `limit`, through removals and reused rows', async () => {
    const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' '))
    const fields = fc.tuple(text, text, text)
    await fc.assert(
      fc.asyncProperty(
        fc.array(fields, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(fields, { maxLength: 3 }),
        fc.array(fc.constantFrom(...WORDS, 'moo', 'absent'), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 6 }),
        async (added, removals, readded, queryWords, limit) => {
          const index = textIndex(BOOSTS)
          const reference = miniSearch()
          const rows = new Map<number, readonly string[]>()
          for (const [row, row_fields] of added.entries()) {
            index.add(row, row_fields)
            reference.add(asDocument(row, row_fields))
            rows.set(row, row_fields)
          }
          const freed: number[] = []
          for (const pick of removals) {
            const row = [...rows.keys()][pick % rows.size]
            if (row === undefined || rows.size === 1) break
            index.remove(row, rows.get(row) as string[])
            reference.discard(row)
            rows.delete(row)
            freed.push(row)
          }
          for (const row_fields of readded) {
            const row = freed.pop() ?? added.length + rows.size
            index.add(row, row_fields)
            reference.add(asDocument(row, row_fields))
            rows.set(row, row_fields)
          }
          await reference.vacuum()
          const query = queryWords.join(' ')
          const expected = reference.search(query).slice(0, limit)
          const found = index.search(query, limit)
          expect(found.map((hit) => hit.score)).toEqual(expected.map((hit) => expect.closeTo(hit.score, 9)))
          // Where scores tie, either order is right: compare the rows of scores that stand apart.
          const apart = (scores: number[], at: number) => scores.every((score, other) => other === at || Math.abs(score - (scores[at] as number)) > 1e-9)
          const scores = expected.map((hit) => hit.score)
          for (const [at, hit] of expected.entries()) if (apart(scores, at)) expect(found[at]?.row).toBe(hit.id)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('finds nothing for no words, a word no row has, or a removed row', () => {
    const index = textIndex(BOOSTS)
    index.add(0, ['Tides', '', 'the moon pulls the sea'])
    index.add(1, ['Lava', '', 'basalt cools'])
    expect(index.search('  ;; ', 5)).toEqual([])
    expect(index.search('zeppelin', 5)).toEqual([])
    expect(index.search('moon', 0)).toEqual([])
    expect(index.search('MOON', 5).map((hit) => hit.row)).toEqual([0])
    index.remove(0, ['Tides', '', 'the moon pulls the sea'])
    expect(index.search('moon', 5)).toEqual([])
    expect(index.search('basalt', 5).map((hit) => hit.row)).toEqual([1])
  })
})

describe('BestRows', () => {
  it('keeps the `limit` best rows, best first, a tie going to the row offered first', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 })), fc.integer({ min: 0, max: 5 }), (scores, limit) => {
        const best = new BestRows(limit)
        for (const [row, score] of scores.entries()) best.offer(row, score)
        const sorted = scores.map((score, row) => ({ row, score })).sort((a, b) => b.score - a.score || a.row - b.row)
        expect(best.results()).toEqual(sorted.slice(0, limit))
      }),
    )
  })
})
