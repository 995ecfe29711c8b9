import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizeText } from '../../src/strategy.js'
import { normalizeUrl } from '../../src/strategy.js'
import { findingsOf, keptFindings } from '../../src/core/run/run-memory.js'

const finding = fc.record(
  {
    text: fc.oneof(fc.constantFrom('Paris is in France.', 'paris is in FRANCE', 'Lyon.', ''), fc.string({ maxLength: 300 })),
    url: fc.constantFrom('https://a.example/', 'https://a.example', 'https://b.example/x', ''),
    title: fc.string({ maxLength: 10 }),
    question: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['text', 'url'] },
)
const anything = fc.oneof(finding, fc.anything())

describe('keptFindings', () => {
  it('never gives more than the limit, nor more characters than allowed, nor the same fact twice, and never throws', () => {
    fc.assert(
      fc.property(fc.array(anything, { maxLength: 30 }), fc.nat({ max: 8 }), fc.integer({ min: 200, max: 1000 }), (found, limit, chars) => {
        const kept = keptFindings(found, limit, chars)
        expect(kept.length).toBeLessThanOrEqual(limit)
        expect(kept.reduce((sum, f) => sum + f.text.length, 0)).toBeLessThanOrEqual(chars)
        const keys = kept.map((f) => `${normalizeText(f.text)}\n${normalizeUrl(f.url)}`)
        expect(new Set(keys).size).toBe(keys.length)
        for (const f of kept) expect(f.text.trim() && f.url.trim()).toBeTruthy()
      }),
    )
  })

  it('reads anything a store returns without throwing', () => {
    expect(keptFindings(undefined, 5, 500)).toEqual([])
    expect(keptFindings('text', 5, 500)).toEqual([])
    expect(keptFindings([null, 3, { text: 1, url: 'x' }], 5, 500)).toEqual([])
  })
})

describe('findingsOf', () => {
  const citations = [
    { index: 1, url: 'https://a.example/', title: 'A' },
    { index: 2, url: 'https://b.example/' },
  ]

  it("keeps a run's facts, one per source, titled from its citations", () => {
    const facts = [
      { id: 'f1', text: 'Paris is the capital.', sources: ['https://a.example/', 'https://b.example/'] },
      { id: 'f2', text: 'Unsourced.', sources: [] },
    ]
    expect(findingsOf({ facts, answer: 'ignored [1].', citations })).toEqual([
      { text: 'Paris is the capital.', url: 'https://a.example/', title: 'A' },
      { text: 'Paris is the capital.', url: 'https://b.example/' },
    ])
  })

  it("takes a factless run's cited sentences, without markers, bullets or uncited sentences", () => {
    const answer = '## Paris\n- Paris is the capital [1]. It is large [1, 2]. Nobody knows why.\nInvented [9].'
    expect(findingsOf({ facts: [], answer, citations })).toEqual([
      { text: 'Paris is the capital.', url: 'https://a.example/', title: 'A' },
      { text: 'It is large.', url: 'https://a.example/', title: 'A' },
      { text: 'It is large.', url: 'https://b.example/' },
    ])
  })
})
