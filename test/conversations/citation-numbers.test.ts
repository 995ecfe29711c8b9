/**
 * A conversation's citation numbers stay put while turns, even concurrent ones, add their
 * sources. Properties over any known citations and any turn's citations, through a session turn.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchResult } from '../../src/index.js'
import { oneTurn, storeWith } from './one-turn.js'

type Citation = ResearchResult['citations'][number]

/**
 * The conversation's citations after a turn citing `added` in a conversation citing `known`, and
 * the number each of the turn's own numbers became (read from the turn's answer as the
 * conversation stores it: one marker per citation, in order).
 */
async function mergeCitations(known: readonly Citation[], added: readonly Citation[]): Promise<{ numbers: Map<number, number>; citations: Citation[] }> {
  const store = await storeWith({ version: 1, priorAnswers: [], citations: [...known], knowledge: '', facts: [] })
  const text = added.map((c) => `Claim [${c.index}].`).join(' ')
  const { state } = await oneTurn(store, { events: [{ type: 'answer', text, citations: [...added] }] })
  const stored = state?.priorAnswers.at(-1)?.answer ?? ''
  const renumbered = [...stored.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]))
  expect(renumbered).toHaveLength(added.length)
  return { numbers: new Map(added.map((c, at) => [c.index, renumbered[at] as number])), citations: state?.citations ?? [] }
}

/** Citations numbered uniquely, over a few URLs so that turns share sources. */
const citations = fc
  .uniqueArray(fc.record({ index: fc.integer({ min: 1, max: 12 }), page: fc.integer({ min: 0, max: 8 }) }), { selector: (c) => c.index, maxLength: 8 })
  .map((list): Citation[] => list.map(({ index, page }) => ({ index, url: `https://example.org/page-${page}` })))

describe('the citation numbers of a conversation', () => {
  it('gives a known source its number, keeps every known number, and numbers each source once', async () => {
    await fc.assert(
      fc.asyncProperty(citations, citations, async (known, added) => {
        // A conversation never holds one URL under two numbers: start from one that does not.
        const knownOnce = known.filter((c, at) => known.findIndex((o) => o.url === c.url) === at)
        const { numbers, citations: merged } = await mergeCitations(knownOnce, added)
        for (const c of knownOnce) expect(merged.find((m) => m.index === c.index)?.url).toBe(c.url)
        expect(new Set(merged.map((c) => c.index)).size).toBe(merged.length)
        expect(new Set(merged.map((c) => c.url)).size).toBe(merged.length)
        expect(merged.map((c) => c.index)).toEqual([...merged.map((c) => c.index)].sort((a, b) => a - b))
        for (const c of added) {
          const number = numbers.get(c.index)
          expect(merged.find((m) => m.index === number)?.url).toBe(c.url)
        }
      }),
    )
  })

  it('keeps a new source the number the turn gave it when it is free, and takes the next free one when not', async () => {
    const known = [{ index: 1, url: 'https://a.example/' }]
    const { numbers, citations: merged } = await mergeCitations(known, [
      { index: 1, url: 'https://b.example/' },
      { index: 2, url: 'https://c.example/' },
      { index: 3, url: 'https://a.example' },
    ])
    expect(Object.fromEntries(numbers)).toEqual({ 1: 2, 2: 3, 3: 1 })
    expect(merged.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://a.example/'],
      [2, 'https://b.example/'],
      [3, 'https://c.example/'],
    ])
  })
})
