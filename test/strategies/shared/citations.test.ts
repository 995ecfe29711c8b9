import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CitationRegistry, citationFilter } from '../../../src/strategy.js'
import { citationNumbers, rewriteCitations } from '../../../src/strategies/shared/citations.js'
import { splitAt } from '../../support/split.js'

describe('citations', () => {
  it('numbers sources densely and stably, whatever their URL spelling', () => {
    const registry = new CitationRegistry([{ index: 1, url: 'https://a.example/x' }])
    expect(registry.indexOf('https://www.a.example/x/')).toBe(1)
    expect(registry.indexOf('https://b.example', 'B')).toBe(2)
    expect(registry.list()).toEqual([
      { index: 1, url: 'https://a.example/x' },
      { index: 2, url: 'https://b.example', title: 'B' },
    ])
  })

  it('numbers new sources past the highest seeded number', () => {
    const registry = new CitationRegistry([
      { index: 2, url: 'https://two.example' },
      { index: 4, url: 'https://four.example' },
    ])
    expect([registry.indexOf('https://new-a.example'), registry.indexOf('https://new-b.example')]).toEqual([5, 6])
  })

  it('drops invented indices with their space and splits lists', () => {
    const map = (n: number) => (n === 1 ? 4 : n === 2 ? 5 : undefined)
    expect(rewriteCitations('Fact [1]. Both [1, 2]. Invented [7]. Mixed [2][7].', map)).toBe('Fact [4]. Both [4][5]. Invented. Mixed [5].')
    expect(citationNumbers('a [1] b [2, 3] c [x]')).toEqual([1, 2, 3])
  })

  it('reads markers as the pattern that defines them does: `[n]`, `[n, m]`, 1 to 4 digits, one space dropped with a dropped marker', () => {
    // The definition, as a regular expression: the scanner must agree with it on any text.
    const marker = /(\s?)\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g
    const reference = (text: string, map: (n: number) => number | undefined) =>
      text.replace(marker, (_whole, space: string, list: string) => {
        const kept = [...new Set(list.split(',').map((n) => map(Number(n.trim()))))].filter((n): n is number => n !== undefined)
        return kept.length ? space + kept.map((n) => `[${n}]`).join('') : ''
      })
    const numbers = (text: string) => [...text.matchAll(marker)].flatMap((m) => m[2]!.split(',').map((n) => Number(n.trim())))
    const map = (n: number) => (n % 3 === 0 ? undefined : n + 1)
    const text = fc.string({ unit: fc.constantFrom('[', ']', '1', '0', '9', ',', ' ', '\t', '\n', 'a', '.'), maxLength: 60 })
    fc.assert(
      fc.property(text, (t) => {
        expect(rewriteCitations(t, map)).toBe(reference(t, map))
        expect(citationNumbers(t)).toEqual(numbers(t))
      }),
      { numRuns: 2000 },
    )
  })

  it('gives the same text streamed in any chunks as rewritten at once', () => {
    const piece = fc.constantFrom('[', ']', '1', '2', '9', ',', ' ', 'word', '.', '[1]', '[2, 9]', '\n')
    const map = (n: number) => (n < 5 ? n * 10 : undefined)
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join('')
        const filter = citationFilter(map)
        const out = splitAt(text, cuts)
          .map((piece) => filter.push(piece))
          .join('')
        expect(out + filter.flush()).toBe(rewriteCitations(text, map))
      }),
      { numRuns: 500 },
    )
  })
})
